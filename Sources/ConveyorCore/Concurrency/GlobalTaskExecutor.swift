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

@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// Conveyor as Swift concurrency's *default executor* object (`Task.defaultExecutor`),
/// installed by `ConveyorConcurrency.installGlobalExecutor()` beside the enqueue hooks.
///
/// Since Swift 6.3, `Task.sleep` and clock sleeps no longer go through the runtime's
/// delayed-enqueue hooks first: they ask `Task.currentSchedulingExecutor` (the actor's
/// executor, else the task's preferred executor, else the default executor). With the
/// hooks alone the default stayed the platform's, whose `enqueue(_:at:)` is libdispatch's
/// `dispatch_after`: a sleeping task woke on libdispatch's timer thread and only then
/// hopped to Conveyor's pool (two threads and two wake-ups; sleep lateness p50 70 µs
/// against the default executor's 47). As the default executor, this object takes those
/// sleeps onto `EventLoop.shared`'s timers, which a spinning worker may fire itself.
///
/// Jobs enqueued here without a deadline are those of tasks that prefer this executor
/// (`Task(executorPreference: globalConcurrentExecutor)`); they run on the pool with this
/// executor as the thread's task executor, as a preference requires. The hooks keep
/// serving every other job.
final class GlobalTaskExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    static let shared = GlobalTaskExecutor()

    private init() {}

    /// A job of a task that prefers this executor: to the pool, at its priority's band.
    func enqueue(_ job: consuming ExecutorJob) {
        WorkerPool.shared.submit(ConcurrencyJob(UnownedJob(job), context: .task(asUnownedTaskExecutor())))
    }

    /// A job to run at `instant` of `clock` (a sleep's wake-up). Swift's own clocks
    /// (`ContinuousClock`, `SuspendingClock`) become a deadline on Conveyor's monotonic
    /// timers; any other clock (a test's virtual clock, say, even one counting in
    /// `Duration`) sleeps in its own way first.
    ///
    /// Known difference: a `ContinuousClock` deadline is kept on the monotonic clock, so
    /// across a system suspend the wake-up comes late by the time suspended.
    func enqueue<C: _Concurrency.Clock>(_ job: consuming ExecutorJob, at instant: C.Instant,
                                        tolerance: C.Duration?, clock: C) {
        let unowned = UnownedJob(job)
        if Self.isSwiftClock(clock), let remaining = clock.now.duration(to: instant) as? Swift.Duration {
            GlobalExecutor.enqueue(unowned, afterNanoseconds: Self.nanoseconds(remaining))
        } else {
            Self.sleepThenSubmit(unowned, until: instant, tolerance: tolerance, clock: clock)
        }
    }

    /// A job to run after `delay` on `clock`: at `delay` from the clock's now.
    func enqueue<C: _Concurrency.Clock>(_ job: consuming ExecutorJob, after delay: C.Duration,
                                        tolerance: C.Duration?, clock: C) {
        enqueue(job, at: clock.now.advanced(by: delay), tolerance: tolerance, clock: clock)
    }

    /// Whether `clock` is one of the standard library's clocks, whose instants Conveyor's
    /// monotonic timers can stand for.
    private static func isSwiftClock<C: _Concurrency.Clock>(_ clock: C) -> Bool {
        clock is ContinuousClock || clock is SuspendingClock
    }

    /// A clock Conveyor cannot convert: let it sleep in its own way, then run the job.
    private static func sleepThenSubmit<C: _Concurrency.Clock>(_ job: UnownedJob, until instant: C.Instant,
                                                             tolerance: C.Duration?, clock: C) {
        Task.detached(priority: TaskPriority(rawValue: job.priority.rawValue)) {
            try? await clock.sleep(until: instant, tolerance: tolerance)
            WorkerPool.shared.submit(ConcurrencyJob(job, context: .global))
        }
    }

    /// Nanoseconds in `duration`, 0 for a negative one, saturating.
    static func nanoseconds(_ duration: Swift.Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max - 1 }
        let (sum, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carry ? UInt64.max - 1 : sum
    }
}

/// The executors `installGlobalExecutor()` hands the runtime: the main executor unchanged
/// (Conveyor's main queue, `MainQueueExecutor`, unless another library installed its
/// own) and `GlobalTaskExecutor`.
enum ConveyorExecutorFactory: ExecutorFactory {
    /// The main executor the runtime already has (created on first use, as it would be).
    static var mainExecutor: any MainExecutor { MainActor.executor }
    static var defaultExecutor: any TaskExecutor { GlobalTaskExecutor.shared }
}
