//===----------------------------------------------------------------------===//
//
// This source file is part of the Conveyor open source project
//
// Copyright (c) 2026 the Conveyor project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

@testable import ConveyorCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The stall breaker (`WorkerPool+StallBreaker.swift`): a thread more whenever the
/// watchdog finds every thread waiting with handed-off work queued and no job started. The
/// hand-off queue is filled here as a blocked worker's guess can leave it: waiters counted
/// as posts (or all pushed behind), and the job that releases them among them. The
/// release waits until one waiter more than the pool may run without the breaker has
/// started, so it needs the breaker in every order the pool may take them in (aging may
/// give it an early turn). At a cap of 4 with two reserve threads: 4 workers and the 8
/// reserve threads of the ceiling for posts, or 7 for jobs pushed behind (a turn is kept
/// for posts). Before the breaker the rest waited for ever. Background blocks that post
/// and wait stalled so under ThreadSanitizer (`PostAndWaitTests`' background cases).
/// Child processes: a failure holds every thread.
@Suite(.serialized) struct StallBreakerTests {
    @Test func waitersHandedOffAsPostsWithTheirReleaseAllFinish() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            releaseNeedsTheBreaker(asPosts: true, threadsWithoutIt: 4 + 8)
        }
        expectNoFailureReport(result)
    }

    /// Every turn for jobs pushed behind held by a waiter, no post: the breaker's thread
    /// starts below the ceiling in count, for a turn more (a review found the allowance
    /// given for it taken back before the thread took the turn, in a first version).
    @Test func waitersAllPushedBehindWithTheirReleaseAllFinish() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            releaseNeedsTheBreaker(asPosts: false, threadsWithoutIt: 4 + 7)
        }
        expectNoFailureReport(result)
    }

    /// Waiters whose release never comes (a real deadlock): the breaker stops at
    /// `stallThreadLimit` threads past the ceiling, and they all finish once released from
    /// outside.
    @Test func aRealDeadlockCostsAtMostTheBreakersThreads() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let pool = WorkerPool.shared
            pool.lowerThreadCap(to: 4)
            pool.lowerReserveThreadLimit(to: 2)
            let limit = pool.reserveOwnCeiling + WorkerPool.stallThreadLimit
            let waiters = limit + 40
            let gate = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            handOff(waiters: waiters, asPosts: true, gate: gate, arrived: nil, finished: finished, release: nil)
            guard waitUntil(seconds: 60, { pool.reserveThreads.load(ordering: .relaxed) >= limit }) else {
                exitReportingFailure("the breaker did not reach its limit:\n" + pool.stateDescription)
            }
            // A second, many ticks, at the limit: no thread more.
            let stop = DispatchTime.now() + .seconds(1)
            while DispatchTime.now() < stop {
                if pool.reserveThreads.load(ordering: .relaxed) > limit {
                    exitReportingFailure("more reserve threads than the breaker's limit:\n" + pool.stateDescription)
                }
                usleep(1_000)
            }
            for _ in 0..<waiters { gate.signal() }
            for done in 0..<waiters where finished.wait(timeout: deadline(seconds: 60)) == .timedOut {
                exitReportingFailure("released, yet stalled: \(done) of \(waiters) finished\n" + pool.stateDescription)
            }
            exit(0)
        }
        expectNoFailureReport(result)
    }
}

/// At a cap of 4 with two reserve threads, hands off 30 waiters (as posts or all pushed
/// behind) and, behind them, the job that releases them once `threadsWithoutIt + 1` have
/// started; exits once all finished, with a stall broken, and every reserve thread gone.
private func releaseNeedsTheBreaker(asPosts: Bool, threadsWithoutIt: Int) -> Never {
    let pool = WorkerPool.shared
    pool.lowerThreadCap(to: 4)
    pool.lowerReserveThreadLimit(to: 2)
    let waiters = 30
    let gate = DispatchSemaphore(value: 0)
    let arrived = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let release = ClosureJob {
        for _ in 0...threadsWithoutIt { arrived.wait() }
        for _ in 0..<waiters { gate.signal() }
    }
    handOff(waiters: waiters, asPosts: asPosts, gate: gate, arrived: arrived, finished: finished, release: release)
    for done in 0..<waiters where finished.wait(timeout: deadline(seconds: 60)) == .timedOut {
        exitReportingFailure("stalled: \(done) of \(waiters) finished\n" + pool.stateDescription)
    }
    guard pool.stallBreaks.load(ordering: .relaxed) > 0 else {
        exitReportingFailure("finished with no stall broken:\n" + pool.stateDescription)
    }
    guard waitUntil(seconds: 30, { pool.reserveThreads.load(ordering: .relaxed) == 0 }) else {
        exitReportingFailure("all finished, but reserve threads stayed:\n" + pool.stateDescription)
    }
    exit(0)
}

/// Puts `waiters` jobs that each signal `arrived`, wait on `gate` and signal `finished`
/// in the hand-off queue, as posts or pushed behind, and `release` (if any) behind them;
/// then wakes the pool.
private func handOff(waiters: Int, asPosts: Bool, gate: DispatchSemaphore, arrived: DispatchSemaphore?,
                     finished: DispatchSemaphore, release: Job?) {
    let pool = WorkerPool.shared
    let now = Clock.monotonicNanoseconds()
    var left = waiters
    let nextWaiter: () -> Job? = {
        guard left > 0 else { return nil }
        left -= 1
        return ClosureJob {
            arrived?.signal()
            gate.wait()
            finished.signal()
        }
    }
    var release = release
    if asPosts {
        _ = pool.handedOff.pushBehind(at: now) { release.take() }
        _ = pool.handedOff.pushBatch(at: now, nextWaiter)
    } else {
        _ = pool.handedOff.pushBehind(at: now, nextWaiter)
        _ = pool.handedOff.pushBehind(at: now) { release.take() }
    }
    pool.notifyWorkAvailable()
}

/// A job that runs a closure, put straight where the pool takes jobs.
private final class ClosureJob: Job, @unchecked Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        super.init(band: .default)
    }

    override func run(on queue: DispatchQueue?) { body() }
}
