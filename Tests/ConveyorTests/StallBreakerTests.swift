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

/// The stall breaker (`WorkerPool+StallBreaker.swift`): past the reserve's ceiling, a
/// thread more whenever the watchdog finds every thread waiting with handed-off work
/// queued. The hand-off queue is filled here as a blocked worker's guess can leave it:
/// more waiters counted as posts, ahead of the job they wait for, which counts as pushed
/// behind. At a cap of 4 with two reserve threads (a ceiling of 8), the first 12 waiters
/// take every thread; before the breaker the rest, and the job, waited for ever.
/// Background blocks that post and wait stalled so under ThreadSanitizer
/// (`PostAndWaitTests`' background cases). Child processes: a failure holds every thread.
@Suite(.serialized) struct StallBreakerTests {
    @Test func waitersHandedOffAsPostsAheadOfTheirReleaseAllFinish() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let pool = WorkerPool.shared
            pool.lowerThreadCap(to: 4)
            pool.lowerReserveThreadLimit(to: 2)
            let waiters = 30
            let gate = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            handOff(waiters: waiters, gate: gate, finished: finished,
                    release: ClosureJob { for _ in 0..<waiters { gate.signal() } })
            for done in 0..<waiters where finished.wait(timeout: deadline(seconds: 60)) == .timedOut {
                exitReportingFailure("stalled: \(done) of \(waiters) finished\n" + pool.stateDescription)
            }
            let breaks = pool.stallBreaks.load(ordering: .relaxed)
            guard breaks > 0 else { exitReportingFailure("finished with no stall broken:\n" + pool.stateDescription) }
            guard waitUntil(seconds: 30, { pool.reserveThreads.load(ordering: .relaxed) == 0 }) else {
                exitReportingFailure("all finished, but reserve threads stayed:\n" + pool.stateDescription)
            }
            exit(0)
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
            let limit = 4 * 2 + WorkerPool.stallThreadLimit
            let waiters = limit + 40
            let gate = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            handOff(waiters: waiters, gate: gate, finished: finished, release: nil)
            guard waitUntil(seconds: 60, { pool.reserveThreads.load(ordering: .relaxed) >= limit }) else {
                exitReportingFailure("the breaker did not reach its limit:\n" + pool.stateDescription)
            }
            // Ten ticks or more at the limit: no thread more.
            let stop = DispatchTime.now() + .milliseconds(200)
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

/// Puts `release` (if any) in the hand-off queue as pushed behind, then `waiters` jobs that
/// each wait on `gate` and signal `finished` as posts ahead of it, and wakes the pool.
private func handOff(waiters: Int, gate: DispatchSemaphore, finished: DispatchSemaphore, release: Job?) {
    let pool = WorkerPool.shared
    let now = Clock.monotonicNanoseconds()
    var release = release
    _ = pool.handedOff.pushBehind(at: now) { release.take() }
    var left = waiters
    _ = pool.handedOff.pushBatch(at: now) {
        guard left > 0 else { return nil }
        left -= 1
        return ClosureJob {
            gate.wait()
            finished.signal()
        }
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
