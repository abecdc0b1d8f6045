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

import Synchronization
import Testing
@testable import ConveyorCore

/// `GlobalTaskExecutor`, the default executor `installGlobalExecutor()` hands the runtime:
/// tested here through a task executor preference (the process's own default executor
/// stays the platform's; the installation itself is tested in a child process).
@Suite struct GlobalTaskExecutorTests {
    /// Swift 6.3's `Task.sleep` asks the task's executors for a scheduling one: a task
    /// preferring this executor sleeps on Conveyor's timers, never too short, and resumes
    /// on a pool worker.
    @Test func aSleepOnSwiftsClocksUsesConveyorsTimers() async throws {
        let before = GlobalExecutor.timedJobs.load(ordering: .relaxed)
        let start = ContinuousClock.now
        let resumedOnWorker = try await Task(executorPreference: GlobalTaskExecutor.shared) {
            try await Task.sleep(for: .milliseconds(20))
            try await Task.sleep(until: SuspendingClock.now + .milliseconds(5), clock: SuspendingClock())
            return Worker.current != nil
        }.value
        #expect(ContinuousClock.now - start >= .milliseconds(25))
        #expect(resumedOnWorker)
        #expect(GlobalExecutor.timedJobs.load(ordering: .relaxed) >= before + 2)
    }

    /// A clock whose durations are not `Duration` cannot become a Conveyor deadline: the
    /// executor lets the clock sleep in its own way, then runs the job; never early. (The
    /// runtime itself only asks with Swift's clocks; code using the SPI may ask with any.)
    @Test func aJobForAnotherClockWaitsForThatClock() async throws {
        let clock = TickClock()
        let delaying = DelayingExecutor(clock: clock, delay: Ticks(milliseconds: 20))
        let start = ContinuousClock.now
        let elapsed = await Task(executorPreference: delaying) { ContinuousClock.now - start }.value
        #expect(elapsed >= .milliseconds(20))
        #expect(clock.sleeps.load(ordering: .relaxed) == 1)
        #expect(delaying.delayedJobs.load(ordering: .relaxed) == 1)
    }

    /// Saturating conversion of durations to the nanoseconds of a deadline.
    @Test func durationsBecomeNanosecondsSaturating() {
        #expect(GlobalTaskExecutor.nanoseconds(.milliseconds(3)) == 3_000_000)
        #expect(GlobalTaskExecutor.nanoseconds(.nanoseconds(-5)) == 0)
        #expect(GlobalTaskExecutor.nanoseconds(.zero) == 0)
        #expect(GlobalTaskExecutor.nanoseconds(.seconds(Int64.max)) == UInt64.max - 1)
    }
}

/// A task executor that hands its first job to `GlobalTaskExecutor` for `delay` on `clock`,
/// and runs the others (and that one, once it comes back to it) on the global queue.
final class DelayingExecutor: TaskExecutor, @unchecked Sendable {
    let clock: TickClock
    let delay: Ticks
    let delayedJobs = Atomic<Int>(0)
    init(clock: TickClock, delay: Ticks) {
        self.clock = clock
        self.delay = delay
    }
    func enqueue(_ job: consuming ExecutorJob) {
        if delayedJobs.add(1, ordering: .relaxed).newValue == 1 {
            GlobalTaskExecutor.shared.enqueue(job, at: clock.now.advanced(by: delay), tolerance: nil, clock: clock)
            return
        }
        delayedJobs.subtract(1, ordering: .relaxed)
        let unowned = UnownedJob(job)
        DispatchQueue.global().async { unowned.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A duration in milliseconds that is not Swift's `Duration`.
struct Ticks: DurationProtocol, Hashable {
    var milliseconds: Int64
    static var zero: Ticks { Ticks(milliseconds: 0) }
    static func + (lhs: Ticks, rhs: Ticks) -> Ticks { Ticks(milliseconds: lhs.milliseconds + rhs.milliseconds) }
    static func - (lhs: Ticks, rhs: Ticks) -> Ticks { Ticks(milliseconds: lhs.milliseconds - rhs.milliseconds) }
    static func < (lhs: Ticks, rhs: Ticks) -> Bool { lhs.milliseconds < rhs.milliseconds }
    static func / (lhs: Ticks, rhs: Int) -> Ticks { Ticks(milliseconds: lhs.milliseconds / Int64(rhs)) }
    static func * (lhs: Ticks, rhs: Int) -> Ticks { Ticks(milliseconds: lhs.milliseconds * Int64(rhs)) }
    static func / (lhs: Ticks, rhs: Ticks) -> Double { Double(lhs.milliseconds) / Double(rhs.milliseconds) }
}

/// A clock counting `Ticks` on the continuous clock, which sleeps through that clock.
final class TickClock: _Concurrency.Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var base: ContinuousClock.Instant
        func advanced(by duration: Ticks) -> Instant { Instant(base: base + .milliseconds(duration.milliseconds)) }
        func duration(to other: Instant) -> Ticks {
            let (seconds, attoseconds) = (other.base - base).components
            return Ticks(milliseconds: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
        }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.base < rhs.base }
    }
    let sleeps = Atomic<Int>(0)
    var now: Instant { Instant(base: ContinuousClock.now) }
    var minimumResolution: Ticks { Ticks(milliseconds: 1) }
    func sleep(until deadline: Instant, tolerance: Ticks?) async throws {
        sleeps.add(1, ordering: .relaxed)
        try await ContinuousClock().sleep(until: deadline.base, tolerance: nil)
    }
}
