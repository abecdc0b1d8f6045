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

// Merging events into a source and delivering them to its handlers.
//
// A source owns one delivery job. `state.isScheduled` says the job is on the target queue
// or running; only the thread that sets it enqueues the job, so the handlers of one
// source never run at the same time, whatever the target. While scheduled the source
// holds one extra reference on itself (taken in `scheduleDeliveryLocked`, dropped when
// the job ends), so a delivery in flight keeps it alive.
//
// The job makes one pass, as libdispatch's source invoke does (`runDelivery`): the
// registration handler, then the cancel handler or one event handler call, then a cancel
// handler due by then; it goes back on the target queue if more is due (an event merged
// meanwhile), so a busy source cannot starve the other work of its queue.

/// The job that runs a source's handlers on its target queue.
final class SourceDeliveryJob: Job, @unchecked Sendable {
    /// The source outlives the job's time on a queue (it holds itself while scheduled).
    unowned(unsafe) let source: DispatchSource

    init(source: DispatchSource) {
        self.source = source
        super.init(band: source.targetQueue.band)
    }

    override func run(on queue: DispatchQueue?) {
        source.runDelivery()
    }
}

extension DispatchSource {
    /// Merges `value` into the pending data (by the source's merge rule) and schedules a
    /// delivery if one can start. Ignored once the source is cancelled.
    func merge(_ value: UInt) {
        lock.lock()
        accumulateLocked(value)
        scheduleDeliveryLocked()
        lock.unlock()
    }

    /// `add(data:)`, `or(data:)`, `replace(data:)` (`rule` names the call): merged by the
    /// source's own rule, whichever of the three is called, as libdispatch's
    /// `dispatch_source_merge_data` does under all three (`add(data:)` on an or source
    /// ORs). A source that is not a user-data source traps, as it does there ("Invalid
    /// source type").
    func mergeUserData(_ value: UInt, as rule: SourceMerge) {
        guard kind == .userDataAdd || kind == .userDataOr || kind == .userDataReplace else {
            let call = rule == .add ? "add(data:)" : rule == .or ? "or(data:)" : "replace(data:)"
            fatalError("Conveyor: \(call) on a \(kind.rawValue) dispatch source; it needs a source made by makeUserDataAddSource, makeUserDataOrSource or makeUserDataReplaceSource")
        }
        if value == 0 && mergeRule != .replace { return }
        merge(value)
    }

    /// Combines `value` with the pending data. Lock held.
    func accumulateLocked(_ value: UInt) {
        guard !state.isCancelRequested else { return }
        switch mergeRule {
        case .add:
            pendingData &+= value
            state.hasPendingEvent = pendingData != 0
        case .or:
            pendingData |= value
            state.hasPendingEvent = pendingData != 0
        case .replace:
            pendingData = value
            state.hasPendingEvent = value != 0
        case .set:
            pendingData = value
            state.hasPendingEvent = true
        }
    }

    /// Forgets merged data not yet delivered (a timer's new schedule). Lock held.
    func clearPendingLocked() {
        pendingData = 0
        state.hasPendingEvent = false
    }

    /// Whether a handler may start now. Lock held.
    var canDeliverLocked: Bool {
        !state.isInactive && state.suspendCount == 0 && !state.isInstalling
    }

    /// Whether a handler is due. Lock held.
    var hasWorkLocked: Bool {
        if state.needsRegistration { return true }
        if state.isCancelRequested { return state.isTornDown && !state.isCancelDelivered }
        return state.hasPendingEvent
    }

    /// The band the handlers run at: the event handler's own QoS, else the target's. Lock
    /// held.
    var handlerBandLocked: QoSBand { eventHandler?.band ?? targetQueue.band }

    /// Puts the delivery job on the target queue if a handler is due and may start and the
    /// job is not there or running already; the source holds itself while it is. Lock
    /// held.
    ///
    /// The job is enqueued before the lock goes, not after: a `cancel()` that finds it
    /// scheduled queues nothing and returns, and a `sync` on a serial target made after
    /// that must find the job ahead of it (its pass runs the cancel handler). Enqueued
    /// after the unlock, the job could land behind that `sync` (found by the composition
    /// tester: a delivery going back on its queue for an event merged meanwhile). Safe
    /// under the lock: enqueueing runs no user code, takes no source's lock, and the
    /// locks it may take (the pool's, the hand-off queue's) are never held by a thread
    /// that waits for a source's lock. It may start a pool thread.
    func scheduleDeliveryLocked() {
        guard !state.isScheduled, hasWorkLocked, canDeliverLocked else { return }
        state.isScheduled = true
        deliveryJob.band = handlerBandLocked
        _ = retainedForPublishing(self)
        enqueueDeliveryLocked(on: targetQueue)
    }

    /// Puts the scheduled delivery job on `target` (lock held: see
    /// `scheduleDeliveryLocked`).
    private func enqueueDeliveryLocked(on target: DispatchQueue) {
        #if DEBUG
        Self.beforeDeliveryEnqueue?(self)
        #endif
        target.enqueue(deliveryJob)
    }

    /// The delivery job's body: one pass, as libdispatch's source invoke makes: the
    /// registration handler, then a cancellation or the event pending then, then a
    /// cancellation requested meanwhile, all before anything queued on the target while
    /// they ran. Events merged while the event handler ran go behind that, as there: the
    /// job is queued again at the tail. (Probe against libdispatch, 2,000 rounds each, on a
    /// serial target: data merged before activation is delivered before a block the
    /// registration handler submits; a cancel from the event or registration handler, or
    /// from another thread as the handler returns, runs the cancel handler before a block
    /// submitted first; data merged from the event handler comes after a block it
    /// submitted first. Conveyor queued the job again after every handler.)
    ///
    /// The pass stops, and the job goes back on the target queue, where a step must not
    /// run in place: the next event handler wants another band (set with its own QoS), or
    /// a registration handler set another one (which then runs after the queue's other
    /// work, not in a loop). A target changed during the pass takes effect after it, as in
    /// libdispatch (probe: `setTarget(queue: q2)` in the registration handler of a source
    /// on q1 with data pending; the event handler ran on q1 in 200 rounds of 200).
    func runDelivery() {
        lock.lock()
        // The band the handlers want as the pass starts (not the job's own `band`, which
        // the queues it goes through rewrite: compared with that, the pass requeued itself
        // for ever): an event handler replaced during the pass with another QoS runs in
        // the next one.
        let scheduledBand = handlerBandLocked
        var deliveredAnEvent = false
        var registered = false
        while true {
            guard canDeliverLocked else { return finishDeliveryLocked() }
            if state.needsRegistration {
                if registered { break }
                registered = true
                state.needsRegistration = false
                let handler = registrationHandler
                registrationHandler = nil
                lock.unlock()
                handler?.run()
            } else if state.isCancelRequested {
                guard state.isTornDown, !state.isCancelDelivered else { return finishDeliveryLocked() }
                return deliverCancelLocked()
            } else if state.hasPendingEvent && !deliveredAnEvent {
                if handlerBandLocked != scheduledBand { break }
                deliveredAnEvent = true
                let data = pendingData
                pendingData = 0
                state.hasPendingEvent = false
                deliveredData.store(data, ordering: .releasing)
                let handler = eventHandler
                lock.unlock()
                handler?.run()
                withExtendedLifetime(handler) {}
                monitor?.eventHandlerDidRun(for: self)
            } else {
                break
            }
            lock.lock()
        }
        if hasWorkLocked {
            deliveryJob.band = handlerBandLocked
            // Before the unlock, as `scheduleDeliveryLocked` says why; the reference taken
            // there goes along. Once the job is queued another worker may run its next
            // pass as soon as the lock is free and drop that reference, the source's last:
            // this pass holds one of its own until its unlock is done.
            let pass = Unmanaged.passRetained(self)
            enqueueDeliveryLocked(on: targetQueue)
            lock.unlock()
            pass.release()
        } else {
            finishDeliveryLocked()
        }
    }

    /// Runs the cancel handler (lock held on entry; unlocks) and drops the reference held
    /// while the delivery was scheduled. `data` reads 0 there, as in libdispatch's, not the
    /// last event's.
    private func deliverCancelLocked() {
        state.isCancelDelivered = true
        state.isScheduled = false
        deliveredData.store(0, ordering: .releasing)
        let handlers = (cancelHandler, eventHandler, registrationHandler)
        cancelHandler = nil
        eventHandler = nil
        registrationHandler = nil
        lock.unlock()
        handlers.0?.run()
        withExtendedLifetime(handlers) {}
        Unmanaged.passUnretained(self).release()
    }

    /// Ends a delivery: clears `isScheduled`, unlocks, drops the reference held while
    /// scheduled (which may free the source: nothing may touch it afterwards).
    private func finishDeliveryLocked() {
        state.isScheduled = false
        lock.unlock()
        Unmanaged.passUnretained(self).release()
    }
}
