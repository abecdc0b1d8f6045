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

import CConveyor
import Synchronization

/// A set of tasks watched as one: `enter()` and `leave()` count work in and out; `wait()`
/// blocks, and `notify` schedules work, until the count returns to zero. A group can be
/// used again after it empties.
///
/// The count and a generation number share one atomic word (as in libdispatch): the
/// `leave()` that empties the group bumps the generation in the same atomic step. So a
/// waiter returns once the group has emptied since it started waiting, even if the group
/// was entered again at once, and a `notify` registered while the group holds work is
/// run by the `leave()` that empties that generation, never by an earlier one.
public final class DispatchGroup: DispatchObject, @unchecked Sendable {
    /// Low 32 bits: the number of tasks in the group, negated (modulo 2^32). High 32 bits:
    /// generation, bumped each time the count returns to zero (wrapping). Only touched
    /// through `cnv_group_*` (CConveyor.h says why the count is negated), on a cache line
    /// of its own: the submitting thread and every worker write it.
    private let state: UnsafeMutablePointer<UInt64>
    /// Threads inside `wait` now, so an emptying `leave()` makes a wake-up call only
    /// when someone sleeps.
    private let waiters = Atomic<Int>(0)
    /// Bumped (after `state`) each time the group empties; waiters sleep on it.
    private let wakeWord = FutexWord(0)
    private let lock = FutexLock()
    /// Pending notifications, each with the generation it waits to see end (guarded by lock).
    private var notifications: [Notification] = []

    private struct Notification {
        let generation: UInt32
        let queue: DispatchQueue
        let job: Job
    }

    private static let lineSize = 64

    @inline(__always)
    private static func count(_ state: UInt64) -> UInt64 { UInt64(0 &- UInt32(truncatingIfNeeded: state)) }

    @inline(__always)
    private static func generation(_ state: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: state >> 32) }

    /// Creates an empty group.
    public override init() {
        let line = UnsafeMutableRawPointer.allocate(byteCount: Self.lineSize, alignment: Self.lineSize)
        state = line.initializeMemory(as: UInt64.self, repeating: 0, count: Self.lineSize / 8)
        super.init()
    }

    deinit {
        wakeWord.deallocate()
        UnsafeMutableRawPointer(state).deallocate()
    }

    /// Counts one more task in.
    ///
    /// A non-empty group keeps itself alive (as libdispatch's does): the `enter()` that
    /// makes it non-empty retains it and the `leave()` that empties it releases it, so
    /// the work in the group need not retain it for every task. That retain is done
    /// before the task that may leave at once is published (else the leave's release
    /// would drop the caller's reference): through `retainedForPublishing`, which the
    /// optimizer cannot move past the push (the pushes' own opaque calls would stop it
    /// too; this does not depend on them).
    public func enter() {
        let before = cnv_group_enter(state)
        if before == 0 {
            _ = retainedForPublishing(self)
        } else if before == 1 {
            // 2^32 - 1 tasks in: one more would read as an empty group.
            fatalError("Conveyor: too many nested calls to DispatchGroup.enter()")
        }
    }

    /// Counts one task out. Leaving more often than entered traps.
    public func leave() {
        leave(count: 1)
    }

    /// Counts `count` tasks out in one atomic step: the leaves of consecutive tasks of this
    /// group that one worker ran (`Worker.leaveLater`). Traps, as `leave()` does, when the
    /// group held fewer tasks.
    func leave(count: UInt32) {
        // One atomic add; the leave that empties the group carries into the generation
        // (the next one starts in the same step).
        let before = cnv_group_leave(state, count)
        let inGroup = Self.count(before)
        if inGroup == UInt64(count) {
            didEmpty(endedGeneration: Self.generation(before))
            Unmanaged.passUnretained(self).release()   // balances the emptying enter()
        } else if inGroup < UInt64(count) {
            fatalError("Conveyor: unbalanced call to DispatchGroup.leave() (more leave() than enter())")
        }
    }

    /// The group just went from one task to none, ending `endedGeneration`: wake the
    /// waiters and submit the notifications registered during that generation.
    private func didEmpty(endedGeneration: UInt32) {
        wakeWord.fetchAdd(1)
        if waiters.load(ordering: .sequentiallyConsistent) > 0 { wakeWord.wakeAll() }
        let due = lock.withLock { () -> [Notification] in
            if notifications.isEmpty { return [] }
            var due: [Notification] = []
            notifications.removeAll { notification in
                if notification.generation != endedGeneration { return false }
                due.append(notification)
                return true
            }
            return due
        }
        for notification in due { notification.queue.enqueue(notification.job) }
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
    @preconcurrency public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        execute work: @escaping @Sendable () -> Void
    ) {
        let job = ClosureJob.make(for: queue, qos: qos, flags: flags, body: work)
        addNotification(queue: queue, job: job)
    }

    /// Submits `work` to `queue` when the group is (or next becomes) empty.
    public func notify(queue: DispatchQueue, work: DispatchWorkItem) {
        addNotification(queue: queue, job: WorkItemJob(item: work, band: work.band ?? queue.band, group: nil))
    }

    private func addNotification(queue: DispatchQueue, job: Job) {
        // Reading the state under the lock orders this against the emptying leave's
        // sweep: that leave changes the state first, then takes the lock.
        let runNow = lock.withLock { () -> Bool in
            let current = cnv_group_load(state)
            if Self.count(current) == 0 { return true }
            notifications.append(Notification(generation: Self.generation(current), queue: queue, job: job))
            return false
        }
        if runNow { queue.enqueue(job) }
    }

    private func waitUntilEmpty(remaining: () -> Int64?) -> DispatchTimeoutResult {
        let start = cnv_group_load(state)
        if Self.count(start) == 0 { return .success }
        let startGeneration = Self.generation(start)
        waiters.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { waiters.wrappingSubtract(1, ordering: .relaxed) }
        return withBlockingHint {
            while true {
                // Read the futex word before the state: a leave that empties the group
                // after the state read bumps the word after it, so the wait cannot sleep
                // through it.
                let seen = wakeWord.load()
                if Self.generation(cnv_group_load(state)) != startGeneration {
                    return .success
                }
                let left = remaining()
                if let left, left <= 0 { return .timedOut }
                wakeWord.wait(expected: seen, timeoutNanoseconds: left)
            }
        }
    }

    /// Tasks in the group now (a racy look, for tests).
    var currentCount: Int { Int(Self.count(cnv_group_load(state))) }

    /// Threads inside `wait` now (a racy look, for tests).
    var waiterCount: Int { waiters.load(ordering: .relaxed) }
}
