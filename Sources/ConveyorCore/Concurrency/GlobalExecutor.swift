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

@_spi(ExperimentalCustomExecutors) import _Concurrency
import CConveyor
import CConveyorGlobalExecutor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Swift concurrency on Conveyor: an opt-in that makes Conveyor's pool and timers the
/// global executor of Swift concurrency (what runs tasks that have no executor preference
/// and are not isolated to an actor with its own executor).
public enum ConveyorConcurrency {
    private static let installed = Atomic<Bool>(false)

    /// Makes Conveyor Swift concurrency's global executor, for the rest of the process.
    ///
    /// Call it once, early in `main`, before the first task is created: tasks, child tasks
    /// of task groups and `async let`, `Task.yield()` and the wake-up after `Task.sleep`
    /// then run on Conveyor's worker pool, at the band of the task's priority (`.high` at
    /// user-initiated, `.background` at background, and so on), and sleeps use Conveyor's
    /// timers (Conveyor also becomes `Task.defaultExecutor`, which Swift 6.3's sleeps ask;
    /// the main executor stays what it is, Conveyor's main queue from the program's load). A task that blocks in a Conveyor wait (a
    /// semaphore, a group, `sync`) no longer starves the others: the pool starts another
    /// thread for it, as it does for queues. MainActor work stays on the main thread, and
    /// actors on a `DispatchSerialQueue` on their queue.
    ///
    /// Without the call, Swift concurrency on Linux runs on the toolchain's libdispatch pool.
    /// It goes through the runtime's exported hook variables (the way swift-nio installs its
    /// event loops): it returns false, and changes nothing, when another library has
    /// already installed a global executor, or the runtime has no such hooks.
    @discardableResult
    public static func installGlobalExecutor() -> Bool {
        if installed.load(ordering: .acquiring) { return true }
        var entryPoints = cnv_global_executor_entry_points(
            enqueue: { GlobalExecutor.enqueue($0!) },
            enqueue_after: { delay, job in GlobalExecutor.enqueue(job!, afterNanoseconds: delay) },
            enqueue_at: { sec, nsec, _, _, clock, job in
                GlobalExecutor.enqueue(job!, atSeconds: sec, nanoseconds: nsec, clock: clock)
            })
        guard cnv_install_global_executor(&entryPoints) == 1 else { return false }
        // Sleeps ask the default executor, not the hooks (GlobalTaskExecutor.swift).
        _createExecutors(factory: ConveyorExecutorFactory.self)
        installed.store(true, ordering: .releasing)
        return true
    }

    /// Whether `installGlobalExecutor()` made Conveyor the global executor.
    public static var isGlobalExecutor: Bool { installed.load(ordering: .acquiring) }
}

/// The global executor's side in Conveyor: jobs go to the pool at their priority's band.
enum GlobalExecutor {
    static func enqueue(_ raw: UnsafeMutableRawPointer) {
        let job = unsafeBitCast(raw, to: UnownedJob.self)
        WorkerPool.shared.submit(ConcurrencyJob(job, context: .global))
    }

    static func enqueue(_ raw: UnsafeMutableRawPointer, afterNanoseconds delay: UInt64) {
        enqueue(unsafeBitCast(raw, to: UnownedJob.self), afterNanoseconds: delay)
    }

    /// Jobs given a delay or deadline so far (for tests).
    static let timedJobs = Atomic<Int>(0)

    /// A job to run `delay` nanoseconds from now, on Conveyor's timers.
    static func enqueue(_ job: UnownedJob, afterNanoseconds delay: UInt64) {
        let now = Clock.monotonicNanoseconds()
        let (deadline, overflow) = now.addingReportingOverflow(delay)
        schedule(job, deadline: overflow ? UInt64.max - 1 : deadline, now: now)
    }

    /// A deadline on a Swift clock (1: `ContinuousClock`, 2: `SuspendingClock`), as seconds
    /// and nanoseconds of that clock: converted to the monotonic clock Conveyor's timers use.
    static func enqueue(_ raw: UnsafeMutableRawPointer, atSeconds seconds: Int64, nanoseconds: Int64, clock: Int32) {
        let job = unsafeBitCast(raw, to: UnownedJob.self)
        var time = timespec()
        clock_gettime(clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &time)
        let clockNow = Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        let target = seconds &* 1_000_000_000 &+ nanoseconds
        let remaining = UInt64(max(0, target &- clockNow))
        let now = Clock.monotonicNanoseconds()
        let (deadline, overflow) = now.addingReportingOverflow(remaining)
        schedule(job, deadline: overflow ? UInt64.max - 1 : deadline, now: now)
    }

    private static func schedule(_ job: UnownedJob, deadline: UInt64, now: UInt64) {
        timedJobs.wrappingAdd(1, ordering: .relaxed)
        let work = ConcurrencyJob(job, context: .global)
        if deadline <= now {
            WorkerPool.shared.submit(work)
            return
        }
        EventLoop.shared.addTimer(clock: .monotonic, deadline: deadline, leeway: DispatchQueue.afterLeeway,
                                  poolMayFire: true) { _ in
            WorkerPool.shared.submit(work)
        }
    }

    /// Runs a job on the calling worker, on the generic executor (no actor).
    static func run(_ job: UnownedJob) {
        cnv_run_global_job(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    }
}
