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

/// The work you want to perform, wrapped so that you can cancel it before it starts,
/// wait for it, or be notified when it is done.
///
/// A cancelled item that has not started never runs. Waiting and notification refer to
/// the first execution of the item; an item released without ever running delivers its
/// notifications then. As with libdispatch, an item may be waited for once (a `wait` that
/// timed out does not count), and an item that ran more than once may not be waited for
/// or observed with `notify`, nor run again once a wait for it returned: each traps.
public class DispatchWorkItem: @unchecked Sendable {
    private static let started: UInt32 = 1
    private static let finished: UInt32 = 2
    private static let cancelled: UInt32 = 4
    /// A `wait` is in progress (libdispatch's DBF_WAITING).
    private static let waiting: UInt32 = 8
    /// A `wait` returned with the item done (DBF_WAITED).
    private static let waited: UInt32 = 16
    /// The item finished more than once (libdispatch's `dbpd_performed > 1`).
    private static let ranTwice: UInt32 = 32

    let flags: DispatchWorkItemFlags
    let band: QoSBand?
    private let block: () -> Void
    /// started / finished / cancelled bits; waiters sleep on it until `finished`.
    private let word = FutexWord(0)
    private let lock = FutexLock()
    private var notifications: [(DispatchQueue, Job)] = []   // guarded by lock

    /// Creates a work item.
    /// - Parameters:
    ///   - qos: The quality of service for the item (default: the queue's).
    ///   - flags: `.barrier` to run alone on a concurrent queue; QoS flags are accepted.
    ///   - block: The work.
    @preconcurrency public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], block: @escaping @Sendable () -> Void) {
        self.flags = flags
        self.band = flags.band(for: qos)
        self.block = block
    }

    deinit {
        // An item released without ever running still lets its notifications go, as
        // libdispatch's block object does when it is destroyed unperformed (it leaves the
        // group its notifies wait on). Nothing else can reach the list any more.
        if word.load() & Self.finished == 0 {
            for (queue, job) in notifications { queue.enqueue(job) }
        }
        word.deallocate()
    }

    /// Runs the work now on the calling thread (unless the item was cancelled first).
    public func perform() {
        let seen = word.load()
        if seen & Self.waited != 0 {
            fatalError("Conveyor: a work item (block object) ran again after a wait for it returned; it may not be both run more than once and waited for")
        }
        if seen & Self.cancelled == 0 {
            setBits(Self.started)
            block()
        }
        complete()
    }

    /// Waits until the item has run (or was skipped because it was cancelled).
    /// Traps when the item was waited for already or ran more than once.
    public func wait() {
        _ = waitOnce(deadline: { nil })
    }

    /// Waits until the item has run or `timeout` passes. Traps when the item was waited
    /// for already or ran more than once.
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        waitOnce(deadline: { timeout.nanosecondsRemaining() })
    }

    /// Waits until the item has run or the wall-clock `wallTimeout` passes. Traps when
    /// the item was waited for already or ran more than once.
    public func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult {
        waitOnce(deadline: { wallTimeout.nanosecondsRemaining() })
    }

    /// Submits `work` to `queue` once this item is done.
    /// Traps when the item ran more than once.
    @preconcurrency public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        execute work: @escaping @Sendable () -> Void
    ) {
        let job = ClosureJob.make(for: queue, qos: qos, flags: flags, body: work)
        addNotification(queue: queue, job: job)
    }

    /// Submits `item` to `queue` once this item is done. Traps when this item ran more
    /// than once.
    public func notify(queue: DispatchQueue, execute item: DispatchWorkItem) {
        addNotification(queue: queue, job: WorkItemJob(item: item, band: item.band ?? queue.band, group: nil))
    }

    /// Cancels the item: if it has not started, it will not run. Work already running
    /// goes on (it can check `isCancelled`).
    public func cancel() { setBits(Self.cancelled) }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { word.load() & Self.cancelled != 0 }

    // MARK: internals

    /// Sets `bits`; returns the value before.
    @discardableResult
    private func setBits(_ bits: UInt32) -> UInt32 {
        var current = word.load()
        while current & bits != bits {
            let (done, seen) = word.compareExchange(expected: current, desired: current | bits)
            if done { return current }
            current = seen
        }
        return current
    }

    /// Clears `bits`.
    private func clearBits(_ bits: UInt32) {
        var current = word.load()
        while current & bits != 0 {
            let (done, seen) = word.compareExchange(expected: current, desired: current & ~bits)
            if done { return }
            current = seen
        }
    }

    private func complete() {
        if setBits(Self.finished) & Self.finished != 0 {   // only the first run notifies
            setBits(Self.ranTwice)
            return
        }
        word.wakeAll()
        let pending = lock.withLock { () -> [(DispatchQueue, Job)] in
            let taken = notifications
            notifications = []
            return taken
        }
        for (queue, job) in pending { queue.enqueue(job) }
    }

    private func addNotification(queue: DispatchQueue, job: Job) {
        if word.load() & Self.ranTwice != 0 {
            fatalError("Conveyor: notify on a work item (block object) that ran more than once; it may not be both run more than once and observed")
        }
        let runNow = lock.withLock { () -> Bool in
            if word.load() & Self.finished != 0 { return true }
            notifications.append((queue, job))
            return false
        }
        if runNow { queue.enqueue(job) }
    }

    /// The one wait libdispatch allows (`dispatch_block_wait`): another wait, in progress or
    /// returned, traps, as does a wait for an item that ran more than once; a wait that
    /// timed out leaves the item to be waited for again.
    private func waitOnce(deadline remaining: () -> Int64?) -> DispatchTimeoutResult {
        let before = setBits(Self.waiting)
        if before & (Self.waiting | Self.waited) != 0 {
            fatalError("Conveyor: a work item (block object) may not be waited for more than once")
        }
        if before & Self.ranTwice != 0 {
            fatalError("Conveyor: wait for a work item (block object) that ran more than once; it may not be both run more than once and waited for")
        }
        let result = waitUntilFinished(deadline: remaining)
        if result == .success { setBits(Self.waited) } else { clearBits(Self.waiting) }
        return result
    }

    private func waitUntilFinished(deadline remaining: () -> Int64?) -> DispatchTimeoutResult {
        var value = word.load()
        if value & Self.finished != 0 { return .success }
        return withBlockingHint {
            while value & Self.finished == 0 {
                let left = remaining()
                if let left, left <= 0 { return .timedOut }
                word.wait(expected: value, timeoutNanoseconds: left)
                value = word.load()
            }
            return .success
        }
    }
}
