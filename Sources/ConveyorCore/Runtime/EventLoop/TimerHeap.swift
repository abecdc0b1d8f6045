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

/// The pending timers of one clock: slots for their state plus two intrusive binary
/// min-heaps over the same slots, one ordered by deadline (earliest allowed fire time)
/// and one by latest (deadline + leeway, the end of the timer's window).
///
/// Leeway is a window for coalescing, never a delay. The event loop sleeps until
/// `nextFireTime` and then fires every timer whose *deadline* has passed. That instant is
/// the last deadline that still lies in every window of the group it ends: among the
/// timers whose deadline is at or before the smallest *latest*, the latest deadline. All
/// of that group fire in one wake-up, none early and none past its window; a timer with
/// nobody to share a wake-up with (no other deadline before its window ends) fires at its
/// own deadline, not at the end of its window.
///
/// Each slot records its position in both heaps, so insert, remove and reschedule are
/// O(log n). Slots are reused through a free list; a generation number per slot makes
/// old handles stale. Not thread-safe: the event loop guards it with its lock.
struct TimerHeap {
    /// One timer's state.
    struct Slot {
        /// Earliest instant the timer may fire (ns on the heap's clock).
        var deadline: UInt64 = 0
        /// `deadline + leeway`, saturating: the end of the timer's window.
        var latest: UInt64 = 0
        /// Insertion order; breaks deadline ties so equal deadlines fire first-in first-out.
        var sequence: UInt64 = 0
        /// Bumped when the slot is freed, so handles to the old timer go stale.
        var generation: UInt32 = 0
        /// Position in `byDeadline`, or -1 when not scheduled.
        var deadlinePosition: Int32 = -1
        /// Position in `byLatest`, or -1 when not scheduled.
        var latestPosition: Int32 = -1
        /// Popped as expired; its callback has not started yet.
        var isQueued = false
        /// In use by a timer (not on the free list).
        var isLive = false
        /// Its callback may run on a searching pool worker, not only the event thread.
        var poolMayFire = false
        var callback: TimerCallback?
    }

    private enum Order { case deadline, latest }

    private(set) var slots: [Slot] = []
    private var freeSlots: [UInt32] = []
    private var byDeadline: [UInt32] = []
    private var byLatest: [UInt32] = []
    private var nextSequence: UInt64 = 0

    /// Number of scheduled (not yet expired) timers.
    var count: Int { byDeadline.count }

    /// When the clock's timerfd should ring, or nil: the latest deadline at or before the
    /// earliest end of any window (see the type's comment). It lies in every window of
    /// the timers it fires: each has its deadline at or before it, and its window ends no
    /// earlier than the earliest end. A timer alone fires at its deadline.
    ///
    /// The search walks the deadline heap only through deadlines at or before the
    /// earliest end, and stops after `fireTimeSearchLimit` of them: a group that large
    /// fires at the earliest end, as late as its windows allow and still inside all of
    /// them. Zero-leeway timers (`asyncAfter`) end it at the root: their window ends at
    /// their deadline.
    var nextFireTime: UInt64? {
        guard let first = byLatest.first else { return nil }
        let windowEnd = slots[Int(first)].latest
        var best: UInt64 = 0
        var budget = Self.fireTimeSearchLimit
        guard latestDeadline(atOrBefore: windowEnd, from: 0, into: &best, budget: &budget) else { return windowEnd }
        return best
    }

    /// How many timers `nextFireTime` looks at before it settles for the window end.
    static let fireTimeSearchLimit = 64

    /// Raises `best` to the largest deadline at or before `limit` in the subtree of the
    /// deadline heap at `position`. Returns false when `budget` ran out first.
    private func latestDeadline(atOrBefore limit: UInt64, from position: Int, into best: inout UInt64,
                                budget: inout Int) -> Bool {
        guard position < byDeadline.count else { return true }
        let deadline = slots[Int(byDeadline[position])].deadline
        guard deadline <= limit else { return true }  // the whole subtree is later
        budget -= 1
        if budget < 0 { return false }
        best = max(best, deadline)
        return latestDeadline(atOrBefore: limit, from: 2 * position + 1, into: &best, budget: &budget)
            && latestDeadline(atOrBefore: limit, from: 2 * position + 2, into: &best, budget: &budget)
    }

    /// Whether `handle` still names a live timer in this heap.
    func isCurrent(slot: UInt32, generation: UInt32) -> Bool {
        let index = Int(slot)
        return index < slots.count && slots[index].isLive && slots[index].generation == generation
    }

    /// Whether the live timer in `slot` is waiting in the heaps.
    func isScheduled(_ slot: UInt32) -> Bool { slots[Int(slot)].deadlinePosition >= 0 }

    /// Takes a free slot for a new timer; returns its index and generation.
    mutating func allocate(callback: @escaping TimerCallback, poolMayFire: Bool = false) -> (slot: UInt32, generation: UInt32) {
        let slot: UInt32
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = UInt32(slots.count)
            slots.append(Slot())
        }
        slots[Int(slot)].isLive = true
        slots[Int(slot)].poolMayFire = poolMayFire
        slots[Int(slot)].callback = callback
        return (slot, slots[Int(slot)].generation)
    }

    /// Returns a live slot to the free list (unscheduling it first) and makes its handles
    /// stale. Returns the callback so the caller can release it after unlocking: releasing
    /// may run a deinit, which must not run under the loop's lock.
    mutating func free(_ slot: UInt32) -> TimerCallback? {
        unschedule(slot)
        let index = Int(slot)
        let callback = slots[index].callback
        slots[index].isLive = false
        slots[index].isQueued = false
        slots[index].callback = nil
        slots[index].generation &+= 1
        freeSlots.append(slot)
        return callback
    }

    /// Whether a live timer will still fire: scheduled, or expired and queued to run.
    func isPending(_ slot: UInt32) -> Bool { isScheduled(slot) || slots[Int(slot)].isQueued }

    /// Drops an expired timer's queued fire (a reschedule supersedes it).
    mutating func dequeue(_ slot: UInt32) { slots[Int(slot)].isQueued = false }

    /// Puts a live timer in the heaps with a new window, or moves it if already there.
    mutating func schedule(_ slot: UInt32, deadline: UInt64, leeway: UInt64) {
        let index = Int(slot)
        let (sum, overflow) = deadline.addingReportingOverflow(leeway)
        slots[index].deadline = deadline
        slots[index].latest = overflow ? .max : sum
        slots[index].sequence = nextSequence
        nextSequence &+= 1
        if slots[index].deadlinePosition >= 0 {
            let p = Int(slots[index].deadlinePosition), q = Int(slots[index].latestPosition)
            siftDown(from: siftUp(from: p, .deadline), .deadline)
            siftDown(from: siftUp(from: q, .latest), .latest)
        } else {
            byDeadline.append(slot)
            byLatest.append(slot)
            slots[index].deadlinePosition = Int32(byDeadline.count - 1)
            slots[index].latestPosition = Int32(byLatest.count - 1)
            siftUp(from: byDeadline.count - 1, .deadline)
            siftUp(from: byLatest.count - 1, .latest)
        }
    }

    /// Takes a timer out of both heaps (it stays live); no-op if it is not scheduled.
    mutating func unschedule(_ slot: UInt32) {
        let index = Int(slot)
        guard slots[index].deadlinePosition >= 0 else { return }
        remove(at: Int(slots[index].deadlinePosition), .deadline)
        remove(at: Int(slots[index].latestPosition), .latest)
    }

    /// Unschedules and returns the timer with the earliest deadline if that deadline is
    /// at or before `now`; the timer is marked queued for its callback. With
    /// `poolFirableOnly`, stops at a timer whose callback must run on the event thread.
    mutating func popExpired(now: UInt64, poolFirableOnly: Bool = false) -> (slot: UInt32, generation: UInt32)? {
        guard let top = byDeadline.first, slots[Int(top)].deadline <= now else { return nil }
        if poolFirableOnly && !slots[Int(top)].poolMayFire { return nil }
        unschedule(top)
        slots[Int(top)].isQueued = true
        return (top, slots[Int(top)].generation)
    }

    /// Marks a queued timer as started and returns its callback, or nil if it was
    /// cancelled or rescheduled-and-cancelled since it was popped.
    mutating func claim(slot: UInt32, generation: UInt32) -> TimerCallback? {
        guard isCurrent(slot: slot, generation: generation), slots[Int(slot)].isQueued else { return nil }
        slots[Int(slot)].isQueued = false
        return slots[Int(slot)].callback
    }

    /// Whether a timer's slot can be freed after its callback returned: it is still live
    /// but neither scheduled again nor queued to run again.
    func isSpent(slot: UInt32, generation: UInt32) -> Bool {
        isCurrent(slot: slot, generation: generation) && !isScheduled(slot) && !slots[Int(slot)].isQueued
    }

    // MARK: heap mechanics

    @inline(__always)
    private func slotIndex(at position: Int, _ order: Order) -> Int {
        Int(order == .deadline ? byDeadline[position] : byLatest[position])
    }

    /// Whether slot `a` must sit above slot `b` in the heap.
    @inline(__always)
    private func precedes(_ a: Int, _ b: Int, _ order: Order) -> Bool {
        switch order {
        case .deadline:
            // Field by field: copying a whole `Slot` would retain its callback.
            let x = slots[a].deadline, y = slots[b].deadline
            return x != y ? x < y : slots[a].sequence < slots[b].sequence
        case .latest:
            return slots[a].latest < slots[b].latest
        }
    }

    @inline(__always)
    private mutating func place(_ slot: Int, at position: Int, _ order: Order) {
        switch order {
        case .deadline:
            byDeadline[position] = UInt32(slot)
            slots[slot].deadlinePosition = Int32(position)
        case .latest:
            byLatest[position] = UInt32(slot)
            slots[slot].latestPosition = Int32(position)
        }
    }

    @discardableResult
    private mutating func siftUp(from start: Int, _ order: Order) -> Int {
        let moving = slotIndex(at: start, order)
        var position = start
        while position > 0 {
            let parent = (position - 1) / 2
            let parentSlot = slotIndex(at: parent, order)
            guard precedes(moving, parentSlot, order) else { break }
            place(parentSlot, at: position, order)
            position = parent
        }
        place(moving, at: position, order)
        return position
    }

    private mutating func siftDown(from start: Int, _ order: Order) {
        let count = order == .deadline ? byDeadline.count : byLatest.count
        let moving = slotIndex(at: start, order)
        var position = start
        while true {
            let left = 2 * position + 1
            guard left < count else { break }
            var child = left
            var childSlot = slotIndex(at: left, order)
            if left + 1 < count {
                let rightSlot = slotIndex(at: left + 1, order)
                if precedes(rightSlot, childSlot, order) { child = left + 1; childSlot = rightSlot }
            }
            guard precedes(childSlot, moving, order) else { break }
            place(childSlot, at: position, order)
            position = child
        }
        place(moving, at: position, order)
    }

    private mutating func remove(at position: Int, _ order: Order) {
        let removed = slotIndex(at: position, order)
        let last: UInt32
        switch order {
        case .deadline:
            last = byDeadline.removeLast()
            slots[removed].deadlinePosition = -1
        case .latest:
            last = byLatest.removeLast()
            slots[removed].latestPosition = -1
        }
        let count = order == .deadline ? byDeadline.count : byLatest.count
        guard position < count else { return }  // removed the last element itself
        place(Int(last), at: position, order)
        siftDown(from: siftUp(from: position, order), order)
    }

    /// Checks the heap property and the recorded positions (for tests).
    func checkInvariants() -> Bool {
        for order in [Order.deadline, .latest] {
            let heap = order == .deadline ? byDeadline : byLatest
            for (position, slot) in heap.enumerated() {
                let recorded = order == .deadline ? slots[Int(slot)].deadlinePosition : slots[Int(slot)].latestPosition
                if recorded != Int32(position) { return false }
                if position > 0 && precedes(Int(slot), slotIndex(at: (position - 1) / 2, order), order) { return false }
            }
        }
        return byDeadline.count == byLatest.count
    }
}
