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

extension DispatchQueue {
    /// Submits `work` to this queue at `deadline` (never earlier), as soon after it as the
    /// system allows (no implicit leeway: see `afterLeeway`).
    @preconcurrency public func asyncAfter(
        deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable () -> Void
    ) {
        let job = ClosureJob.make(for: self, qos: qos, flags: flags, body: work)
        schedule(job, clock: .monotonic, deadline: deadline.monotonicDeadline)
    }

    /// Submits `work` to this queue at the wall-clock time `wallDeadline` (never earlier).
    @preconcurrency public func asyncAfter(
        wallDeadline: DispatchWallTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable () -> Void
    ) {
        let job = ClosureJob.make(for: self, qos: qos, flags: flags, body: work)
        schedule(job, clock: .wall, deadline: wallDeadline.realtimeDeadline)
    }

    /// Submits a work item to this queue at `deadline` (never earlier).
    public func asyncAfter(deadline: DispatchTime, execute workItem: DispatchWorkItem) {
        schedule(WorkItemJob(item: workItem, band: workItem.band ?? band, group: nil),
                 clock: .monotonic, deadline: deadline.monotonicDeadline)
    }

    /// Submits a work item to this queue at the wall-clock time `wallDeadline` (never earlier).
    public func asyncAfter(wallDeadline: DispatchWallTime, execute workItem: DispatchWorkItem) {
        schedule(WorkItemJob(item: workItem, band: workItem.band ?? band, group: nil),
                 clock: .wall, deadline: wallDeadline.realtimeDeadline)
    }

    private func schedule(_ job: Job, clock: TimerClock, deadline: UInt64) {
        if deadline == UInt64.max { return }   // distantFuture: never runs (as in libdispatch)
        let now = clock.now()
        if deadline <= now {
            enqueue(job)
            return
        }
        EventLoop.shared.addTimer(clock: clock, deadline: deadline, leeway: Self.afterLeeway, poolMayFire: true) { _ in
            self.enqueue(job)
        }
    }

    /// The implicit leeway of `asyncAfter` and of Swift concurrency's delayed jobs: none.
    ///
    /// libdispatch on Darwin gives `dispatch_after` delay/10 (1 ms to 60 s); on Linux it
    /// ignores leeway and fires as soon as it can. Conveyor used min(delay/10, 100 µs):
    /// `conveyor-bench --only timer-lateness` (2,000 timers 50 µs apart) measured it at
    /// half libdispatch's wake-ups but p50 96 µs / p99 197 µs against libdispatch's
    /// 31 / 45 µs. Lateness is what `asyncAfter` callers notice (they have no leeway
    /// parameter to accept more), so the window did not pay for itself; timer sources still
    /// coalesce within the leeway their callers give.
    static let afterLeeway: UInt64 = 0
}
