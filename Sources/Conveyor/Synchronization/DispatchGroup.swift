import Synchronization

/// A set of tasks watched as one: `enter()` and `leave()` count work in and out; `wait()`
/// blocks, and `notify` schedules work, until the count returns to zero. A group can be
/// used again after it empties.
public final class DispatchGroup: DispatchObject, @unchecked Sendable {
    private let count = Atomic<Int>(0)
    private let waiters = Atomic<Int>(0)
    /// Bumped each time the group empties; waiters sleep on it.
    private let generation = FutexWord(0)
    private let lock = FutexLock()
    private var notifications: [(DispatchQueue, Job)] = []   // guarded by lock

    /// Creates an empty group.
    public override init() { super.init() }

    deinit { generation.deallocate() }

    /// Counts one more task in.
    public func enter() {
        count.add(1, ordering: .relaxed)
    }

    /// Counts one task out. Leaving more often than entered traps.
    public func leave() {
        let after = count.subtract(1, ordering: .sequentiallyConsistent).newValue
        if after > 0 { return }
        if after < 0 {
            preconditionFailure("Conveyor: unbalanced call to DispatchGroup.leave() (more leave() than enter())")
        }
        generation.fetchAdd(1)
        if waiters.load(ordering: .sequentiallyConsistent) > 0 { generation.wakeAll() }
        let pending = lock.withLock { () -> [(DispatchQueue, Job)] in
            let taken = notifications
            notifications = []
            return taken
        }
        for (queue, job) in pending { queue.enqueue(job) }
    }

    /// Waits until every task in the group has left.
    public func wait() {
        _ = waitUntilEmpty(remaining: { nil })
    }

    /// Waits until the group is empty or `timeout` passes.
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        waitUntilEmpty(remaining: { timeout.nanosecondsRemaining() })
    }

    /// Waits until the group is empty or the wall-clock `wallTimeout` passes.
    public func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult {
        waitUntilEmpty(remaining: { wallTimeout.nanosecondsRemaining() })
    }

    /// Submits `work` to `queue` when the group is (or next becomes) empty.
    public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        execute work: @escaping () -> Void
    ) {
        let job = ClosureJob(band: flags.band(for: qos) ?? queue.band, isBarrier: flags.contains(.barrier),
                             group: nil, body: work)
        addNotification(queue: queue, job: job)
    }

    /// Submits `work` to `queue` when the group is (or next becomes) empty.
    public func notify(queue: DispatchQueue, work: DispatchWorkItem) {
        addNotification(queue: queue, job: WorkItemJob(item: work, band: work.band ?? queue.band, group: nil))
    }

    private func addNotification(queue: DispatchQueue, job: Job) {
        let runNow = lock.withLock { () -> Bool in
            if count.load(ordering: .acquiring) == 0 { return true }
            notifications.append((queue, job))
            return false
        }
        if runNow { queue.enqueue(job) }
    }

    private func waitUntilEmpty(remaining: () -> Int64?) -> DispatchTimeoutResult {
        if count.load(ordering: .acquiring) == 0 { return .success }
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .relaxed) }
        return withBlockingHint {
            while true {
                let seen = generation.load()
                if count.load(ordering: .sequentiallyConsistent) == 0 { return .success }
                let left = remaining()
                if let left, left <= 0 { return .timedOut }
                generation.wait(expected: seen, timeoutNanoseconds: left)
            }
        }
    }
}
