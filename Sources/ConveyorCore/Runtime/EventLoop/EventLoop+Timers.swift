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

/// Timers: one-shot callbacks on the event thread, no earlier than a deadline and, when
/// possible, no later than deadline + leeway. Windows that overlap are coalesced into
/// one wake-up (see `TimerHeap`).
extension EventLoop {
    /// Schedules `fire` to run once on the event thread (see `poolMayFire`) at a time in
    /// `[deadline, deadline + leeway]` on `clock` (absolute nanoseconds), never before
    /// `deadline`. With leeway 0 it fires as close to the deadline as the kernel allows.
    ///
    /// `fire` gets its own handle, so it can `rescheduleTimer` itself (a repeating
    /// timer); if it does not, the timer is spent when `fire` returns and the handle goes
    /// stale. A deadline in the past fires at once.
    ///
    /// With `poolMayFire`, a monotonic timer's callback may also run on a pool worker
    /// that is searching for work when the timer comes due (`fireDueTimersFromPool`),
    /// which saves the event thread's wake-up and a worker's. Only for callbacks that
    /// merely submit work and need no event-thread state; such a callback must never wait
    /// for the event thread (`runOnEventThread`): its worker holds `runnerLock`.
    @discardableResult
    func addTimer(clock: TimerClock, deadline: UInt64, leeway: UInt64, poolMayFire: Bool = false,
                  fire: @escaping TimerCallback) -> TimerHandle {
        let queue = timerQueues[Int(clock.rawValue)]
        lock.lock()
        let (slot, generation) = queue.heap.allocate(callback: fire, poolMayFire: poolMayFire)
        queue.heap.schedule(slot, deadline: deadline, leeway: leeway)
        queue.armIfEarlier()
        lock.unlock()
        return TimerHandle(clock: clock, slot: slot, generation: generation)
    }

    /// Gives a live timer a new window: pending timers move; a timer whose callback is
    /// running (typically: called from that callback) is armed again. If the timer had
    /// expired but its callback had not started, that fire is dropped in favour of the
    /// new one. Returns false, doing nothing, when the handle is stale (cancelled, or
    /// fired and spent).
    @discardableResult
    func rescheduleTimer(_ handle: TimerHandle, deadline: UInt64, leeway: UInt64) -> Bool {
        let queue = timerQueues[Int(handle.clock.rawValue)]
        lock.lock()
        defer { lock.unlock() }
        guard queue.heap.isCurrent(slot: handle.slot, generation: handle.generation) else { return false }
        queue.heap.dequeue(handle.slot)
        queue.heap.schedule(handle.slot, deadline: deadline, leeway: leeway)
        queue.armIfEarlier()
        return true
    }

    /// Cancels a timer. Returns true when this prevented a fire (the timer was pending);
    /// false when it had already fired and was spent, was cancelled before, or its
    /// callback is running now. In every case, when this returns the callback is not
    /// running and will not start again — unless called from that callback itself,
    /// which then just finishes. Harmless on a stale handle.
    @discardableResult
    func cancelTimer(_ handle: TimerHandle) -> Bool {
        let queue = timerQueues[Int(handle.clock.rawValue)]
        var prevented = false
        var dropped: TimerCallback?
        lock.lock()
        if queue.heap.isCurrent(slot: handle.slot, generation: handle.generation) {
            prevented = queue.heap.isPending(handle.slot)
            dropped = queue.heap.free(handle.slot)
            // The group it belonged to may ring earlier without it (a timer left alone
            // rings at its own deadline, `TimerHeap.nextFireTime`).
            queue.armIfEarlier()
        }
        let ticket = completionTicket(ifRunning: .timer(handle))
        lock.unlock()
        if let ticket { waitForCompletion(ticket) }
        withExtendedLifetime(dropped) {}  // released here, outside the lock
        return prevented
    }

    /// Number of scheduled timers on `clock` (for tests and diagnostics).
    func scheduledTimerCount(clock: TimerClock) -> Int {
        lock.withLock { timerQueues[Int(clock.rawValue)].heap.count }
    }
}
