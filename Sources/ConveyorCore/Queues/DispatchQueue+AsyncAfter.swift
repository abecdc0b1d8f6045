extension DispatchQueue {
    /// Submits `work` to this queue at `deadline` (never earlier). The timer gets a small
    /// implicit leeway (see `afterLeeway`), so timers due within it share one wake-up.
    public func asyncAfter(
        deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable () -> Void
    ) {
        let job = ClosureJob.make(for: self, qos: qos, flags: flags, body: work)
        schedule(job, clock: .monotonic, deadline: deadline.monotonicDeadline)
    }

    /// Submits `work` to this queue at the wall-clock time `wallDeadline` (never earlier).
    public func asyncAfter(
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
        let leeway = Self.afterLeeway(delay: deadline - now)
        EventLoop.shared.addTimer(clock: clock, deadline: deadline, leeway: leeway) { _ in
            self.enqueue(job)
        }
    }

    /// The implicit leeway of `asyncAfter`: a tenth of the delay, at most 100 µs.
    ///
    /// libdispatch on Darwin gives `dispatch_after` delay/10 (1 ms to 60 s); on Linux it
    /// ignores leeway and fires as soon as it can. `asyncAfter` has no leeway parameter
    /// and callers expect it to be punctual, so Conveyor keeps the coalescing window
    /// small here; timer sources honour whatever leeway they are given.
    static func afterLeeway(delay: UInt64) -> UInt64 {
        min(delay / 10, 100_000)
    }
}
