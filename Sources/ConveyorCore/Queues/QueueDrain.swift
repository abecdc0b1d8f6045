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

// The queue state machine: submitting, scheduling on the target, draining, and the
// end-of-drain check that never loses a racing submission (the `dirty` bit).
//
// Invariants:
// - Only the producer that makes the item list non-empty calls `wakeup()`; anything else
//   that may unblock the queue (resume, activate, a finished barrier) calls it too.
// - The `enqueued` bit is the right to consume the item list. While it is set the queue
//   holds one retain, taken when the bit is set by `wakeup()` and dropped by `finish`;
//   except while a `sync` caller holds a serial queue's drain it claimed on an idle
//   queue (`claimedDrain`: no retain; handing that drain on takes one).
// - `finish` clears `enqueued` only with a compare-and-swap that fails if `dirty` was set
//   meanwhile, so a wakeup that arrives during the drain makes the drainer look again.
extension DispatchQueue {
    /// Adds a job to this queue (or, for a global queue, straight to the pool).
    @inline(__always)
    final func enqueue(_ job: consuming Job) {
        if kind == .root {
            job.isOvercommit = isOvercommitRoot   // assigned: a recycled job may carry an old flag
            job.rootBand = band
            WorkerPool.shared.submit(job)
        } else {
            if kind == .main { MainQueueRunner.shared.noteEnqueued() }
            if items.push(job) { wakeup() }
        }
    }

    /// Something may be runnable: schedule a drain unless one is scheduled or running
    /// (then mark it dirty so the drainer looks again), or the queue is stopped.
    @usableFromInline
    final func wakeup() { wakeup(grantingWaitersHere: false) }

    /// `wakeup`, but when this call takes the `enqueued` bit, the calling thread first
    /// grants the `sync` waiters at the head of the list itself (no user code runs: each
    /// grant is a store and a futex wake; on a serial queue the first waiter gets the
    /// drain, and may be the caller), and the drain goes to the target only for the
    /// `async` items behind them. A reader/writer pattern of `sync` calls then costs one
    /// wake-up per waiter, as libdispatch's direct hand-off to sync waiters does, instead
    /// of a pool worker woken to grant it (reader-writer-sync), and a waiter never needs
    /// a free worker to be granted (every worker may be waiting in `sync` on this queue).
    @usableFromInline
    final func wakeupGrantingWaiters() { wakeup(grantingWaitersHere: true) }

    /// Both `wakeup`s: mark the queue runnable (see above).
    ///
    /// Dekker pairing: the producer links its item (the tail exchange in `JobList.push`)
    /// and then reads `state` here, and may return on that read alone (stopped, or
    /// already dirty); whoever makes the queue runnable again or lets it go (`resume`,
    /// `activate`, `itemCompleted`, `barrierCompleted`, `finish`) writes `state` and then
    /// reads the list (`items.isEmpty`). Every one of those four accesses is sequentially
    /// consistent, so the two sides cannot both read the old value: either this read sees
    /// the new state, or that look sees the item. (Acquire and release alone allow both
    /// to miss, a store then a load on two variables; x86-64 never does, weaker machines
    /// may.)
    @inline(__always)
    private final func wakeup(grantingWaitersHere: Bool) {
        var current = state.load(ordering: .sequentiallyConsistent)
        while true {
            let view = QueueState(raw: current)
            if view.isStopped { return }
            if view.isEnqueued {
                if view.isDirty { return }
                let (done, seen) = state.compareExchange(
                    expected: current, desired: current | QueueState.dirty, ordering: .sequentiallyConsistent)
                if done { return }
                current = seen
                continue
            }
            let (done, seen) = state.compareExchange(
                expected: current, desired: current | QueueState.enqueued, ordering: .sequentiallyConsistent)
            if done {
                _ = retainedForPublishing(self)   // held while enqueued; dropped by finish
                // With the `enqueued` bit this thread is the list's one consumer, as a
                // drain job would be. `finish` grants the `sync` waiters at the head (on a
                // serial queue, the first one gets the drain), gives
                // the bit back when nothing else can start (also when the list is empty:
                // another thread that freed the queue took the bit first and granted the
                // waiter this call was made for), and schedules the drain only for `async`
                // work (serving that inline, in front of `async` barriers, woke more
                // workers: reader-writer went from ~3 to ~13 µs per operation).
                if grantingWaitersHere {
                    finish(ownsRetain: true, grantingWaitersHere: true)
                } else {
                    scheduleOnTarget()
                }
                return
            }
            current = seen
        }
    }

    /// Puts this queue's drain job where it will run: the pool, the target's item list,
    /// or the main thread. Called only by the holder of the `enqueued` bit, which alone
    /// reads and writes `drainJob` (pairs with the acquire-release swaps that take and
    /// clear the bit in `wakeup`, `finish` and the `sync` paths).
    @usableFromInline
    final func scheduleOnTarget() {
        if kind == .main {
            MainQueueRunner.shared.signal()
            return
        }
        let job: QueueDrainJob
        if let existing = drainJob {
            job = existing
        } else {
            job = QueueDrainJob(queue: self)
            drainJob = job
        }
        if isRootTargeted {
            prepareForGlobalQueue(job, band: hasOwnQoS ? band : nil)
            // From the ticket's store on, a `DrainStealerJob` may claim this scheduling
            // and drain (SyncOverride.swift); it never touches this job, so the job's band
            // and ticket are written after. The band is read after the store: a `sync`
            // caller that counted itself too late to be seen here sees the ticket and
            // posts a stealer (the pairing is written at `raisedForSyncWaiters`).
            let ticket = publishDrainTicket()
            job.band = raisedForSyncWaiters(job.band)
            job.ticket = ticket
            WorkerPool.shared.submit(job)
        } else {
            // An item of its target queue now: at this queue's own band, not one a global
            // queue it targeted before gave the reused drain job. Only its target's drain
            // may run it (no ticket is published: no stealer can claim it).
            job.band = band
            job.ticket = 0
            let target = UnsafeRawPointer(bitPattern: targetWord.load(ordering: .acquiring))!
            Unmanaged<DispatchQueue>.fromOpaque(target)._withUnsafeGuaranteedRef { $0.enqueue(job) }
        }
    }

    /// Readies a job of this root-targeted queue (its drain, or an item of a concurrent
    /// queue) for the pool: overcommitting when the global queue it targets is, and at
    /// `band`, or at that global queue's band when nil. Read by the holder of the
    /// `enqueued` bit (or of the width unit), as `targetWord` is in `scheduleOnTarget`.
    ///
    /// Callers pass nil for work that takes the queue's band when the queue was made
    /// without a QoS of its own: such a queue runs at the band of the global queue it
    /// targets now, so a retarget (`setTarget` while inactive, or the C API's in-order
    /// retarget of an active queue) moves its work, items queued before it included, to
    /// the new band, as libdispatch's queues inherit their target's priority (its
    /// `dispatch_priority2` test: a queue retargeted to BACKGROUND must not run ahead of
    /// one retargeted to DEFAULT). An item whose band differs from the queue's was given
    /// a QoS of its own (flags, a work item's QoS) and keeps it.
    @inline(__always)
    private final func prepareForGlobalQueue(_ job: Job, band: QoSBand?) {
        withGlobalQueueTarget { root in
            job.isOvercommit = root.isOvercommitRoot
            job.band = band ?? root.band
        }
    }

    /// Calls `body` with the queue this queue targets now, without retaining it; nil for
    /// a global queue or the main queue. Only for a queue that targets a global queue
    /// (global queues live for ever): another target may be released by a retarget
    /// meanwhile.
    @inline(__always)
    final func withGlobalQueueTarget<R>(_ body: (DispatchQueue) -> R) -> R? {
        guard let root = UnsafeRawPointer(bitPattern: targetWord.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<DispatchQueue>.fromOpaque(root)._withUnsafeGuaranteedRef(body)
    }

    /// Runs by the drain job: drain, then hand the queue back.
    final func drainScheduled() {
        switch kind {
        case .serial, .main:
            if drainSerial() { return }   // a `sync` waiter took over the drain
        case .concurrent:
            drainConcurrent(waitersOnly: false)
        case .root:
            fatalError("Conveyor: a global queue is never drained as a queue")
        }
        // A `sync` caller that linked itself after the drain's last look gets the serial
        // drain from here, as `drainSerial` hands it on, not through another drain job.
        finish(ownsRetain: true, grantingWaitersHere: kind == .serial)
    }

    /// Runs items one at a time. Returns true when the drain was handed to a `sync` waiter.
    private final func drainSerial() -> Bool {
        DrainFrame.with(self, exclusive: true) {
            let drainedTarget = targetIdentity
            var budget = 256
            // The main queue drains what was on it when the drain began, then returns to
            // whoever runs the main thread, as libdispatch's main-queue drain takes a
            // snapshot: a run loop must see the stop that a block requested (a repeating
            // timer on the main queue whose handler outlasts its interval always has a next
            // delivery queued; drained in one go, `RunLoop.run` never returned).
            // At least one: a count that fell behind (a push that bypassed `enqueue`) must
            // not leave the queue draining nothing for ever.
            var mainSnapshot = kind == .main ? max(1, MainQueueRunner.shared.itemsAtDrainStart()) : Int.max
            // Items run since the list was last found empty.
            var streak = 0
            while true {
                if QueueState(raw: state.load(ordering: .relaxed)).isStopped { return false }
                // Only a drain that has already run an item waits for a link (a producer
                // is streaming): a queue that gets one item at a time, handed back and
                // forth between queues, would wait on every hop (queue-ping-pong: 385 ->
                // 1020 ns per round trip when every pop waited). The longer wait needs a
                // run of items that never left the list empty, which a ping-pong never
                // has: counted since the start of the drain instead, a ping-pong kept
                // alive by `lingerForMoreItems` reached it and took each item up to 16
                // pauses late (queue-ping-pong 212-259 -> 262-389 ns per round trip).
                let linkWait: JobList.LinkWait = budget == 256 ? .none : streak >= 32 ? .streamingIfIdle : .brief
                if mainSnapshot == 0 { return false }
                guard let job = items.pop(linkWait: linkWait) else {
                    if !lingerForMoreItems() { return false }
                    streak = 0
                    continue
                }
                if kind == .main {
                    MainQueueRunner.shared.notePopped()
                    mainSnapshot -= 1
                }
                if let waiter = job.syncWaiter {
                    // The waiter takes this drain and runs its work on its own thread;
                    // only main-bound work runs here (see SyncChain.swift).
                    if !waiter.runsByProxy {
                        waiter.grant(.handoff)
                        return true
                    }
                    waiter.runByProxy()
                } else {
                    let wasBarrier = job.isBarrier
                    // The list's reference goes on to the job (the retain and the end of
                    // `job`'s lifetime right after it cancel out).
                    Unmanaged.passRetained(consume job)._withUnsafeGuaranteedRef { $0.runConsumingReference(on: self) }
                    // A barrier that retargeted the queue (`RetargetJob`) ends the drain:
                    // `finish` schedules the rest on the new target.
                    if wasBarrier && targetIdentity != drainedTarget { return false }
                }
                streak += 1
                budget -= 1
                // The main queue runs its whole snapshot, as libdispatch's does: a run loop
                // turn (`RunLoop.main.run(until: Date())`) flushes all the work queued before it.
                if budget == 0 && kind != .main { return false }
            }
        }
    }

    /// A drain that emptied its queue waits a moment (about a microsecond or two) for the
    /// next item when its worker has nothing else to do: a producer submitting in a loop
    /// then finds the drain still running, and the queue is not handed back and scheduled
    /// again (a worker woken) for every item. Serial and concurrent queues both linger:
    /// on a concurrent queue used as a reader/writer lock, the next `async` barrier then
    /// finds the drain awake (reader-writer: 2303 -> 682-1555 ns per operation).
    /// A serial queue's drain not on a busy machine (`cnv_spin_advised`): a drain that
    /// lingers there is the one the kernel preempts, and the queue's next items wait out
    /// its time slice (issue 24: timers 50 µs apart on a serial queue beside two threads
    /// burning CPU, p50 45-52 µs late with the advice, 120-180 without). A concurrent
    /// queue's drain lingers still: it only starts items, which run elsewhere, and the
    /// next barrier of a reader-writer queue found it awake (5,728-6,493 ns per operation
    /// against 6,044-7,013 when it stopped lingering there too).
    /// A linger that took far longer than its spins was descheduled: it says so.
    /// Returns whether an item arrived.
    private final func lingerForMoreItems() -> Bool {
        guard kind != .main, Worker.currentHasNothingElse else { return false }
        guard kind == .concurrent || cnv_spin_advised() else { return false }
        let start = Clock.monotonicNanoseconds()
        var arrived = false
        for _ in 0..<64 {
            for _ in 0..<8 { cnv_cpu_relax() }
            if !items.isEmpty {
                arrived = true
                break
            }
        }
        _ = WorkerPool.noteIfDescheduled(since: start, now: Clock.monotonicNanoseconds())
        return arrived
    }

    /// Starts items in order: each non-barrier item takes one unit of width and, when the
    /// target is a global queue, runs on the pool in parallel; a barrier waits until
    /// nothing runs and then runs alone.
    /// With `waitersOnly`, stops at the first item that is not a `sync` waiter served on
    /// its own thread (the caller is not a drain job and runs no queued work).
    private final func drainConcurrent(waitersOnly: Bool) {
        var budget = 256
        while budget > 0 {
            let current = state.load(ordering: .acquiring)
            let view = QueueState(raw: current)
            if view.isStopped || view.isBarrierActive { return }
            guard let head = items.peekFirst() else {
                if !waitersOnly && lingerForMoreItems() { continue }
                return
            }
            if waitersOnly && !head.isSelfServedSyncWaiter { return }
            if head.isBarrier {
                if view.runningCount > 0 { return }   // the last running item wakes us
                guard state.compareExchange(expected: current, desired: current | QueueState.barrierActive,
                                            ordering: .acquiringAndReleasing).exchanged else { continue }
                let job = items.pop()!
                if let waiter = job.syncWaiter {
                    if !waiter.runsByProxy {
                        waiter.grant(.barrier)   // it clears the barrier when done
                        return
                    }
                    waiter.runByProxy()
                } else {
                    let drainedTarget = targetIdentity
                    DrainFrame.with(self, exclusive: true) { job.run(on: self) }
                    if targetIdentity != drainedTarget {
                        // A `RetargetJob`: the rest goes to the new target (`finish`).
                        state.bitwiseAnd(~QueueState.barrierActive, ordering: .releasing)
                        return
                    }
                }
                state.bitwiseAnd(~QueueState.barrierActive, ordering: .releasing)
            } else {
                if isAtWidthLimit(view) { return }   // the item that completes below the limit wakes us
                guard state.compareExchange(expected: current, desired: current &+ QueueState.runningUnit,
                                            ordering: .acquiringAndReleasing).exchanged else { continue }
                let job = items.pop()!
                if let waiter = job.syncWaiter {
                    if !waiter.runsByProxy {
                        waiter.grant(.width)   // it gives the width back when done
                    } else {
                        waiter.runByProxy()
                        state.wrappingSubtract(QueueState.runningUnit, ordering: .releasing)
                    }
                } else if isRootTargeted {
                    job.redirectQueue = self
                    prepareForGlobalQueue(job, band: hasOwnQoS || job.band != band ? job.band : nil)
                    WorkerPool.shared.submit(job)
                } else {
                    DrainFrame.with(self, exclusive: false) { job.run(on: self) }
                    state.wrappingSubtract(QueueState.runningUnit, ordering: .releasing)
                }
            }
            budget -= 1
        }
    }

    /// Runs an item of this concurrent queue that the drain sent to the pool.
    /// Gives up the reference to `job` the caller passes in (see `Job.runConsumingReference`).
    final func runRedirected(_ job: Job) {
        DrainFrame.with(self, exclusive: false) { job.runConsumingReference(on: self) }
        itemCompleted()
    }

    /// One unit of width came back. The drain stops at a barrier until nothing runs, and
    /// at the width limit until something completes: either way, the completion that
    /// frees the queue for the head item wakes it.
    @usableFromInline
    final func itemCompleted() {
        let after = QueueState(raw: state.wrappingSubtract(QueueState.runningUnit, ordering: .sequentiallyConsistent).newValue)
        let limit = UInt64(widthLimit.load(ordering: .relaxed))
        if (after.runningCount == 0 || after.runningCount + 1 == limit) && !items.isEmpty { wakeupGrantingWaiters() }
    }

    /// Whether as many items of this concurrent queue run as its width limit allows.
    @inline(__always)
    final func isAtWidthLimit(_ view: QueueState) -> Bool {
        let limit = widthLimit.load(ordering: .relaxed)
        return limit != 0 && view.runningCount >= UInt64(limit)
    }

    /// A barrier that ran outside the drain (a `sync` barrier) is done.
    @usableFromInline
    final func barrierCompleted() {
        state.bitwiseAnd(~QueueState.barrierActive, ordering: .sequentiallyConsistent)
        if !items.isEmpty { wakeupGrantingWaiters() }
    }

    /// Ends a drain: schedule again if work can start now, else clear `enqueued` (unless
    /// a racing wakeup set `dirty`, in which case look again).
    /// With `grantingWaitersHere` (see `wakeupGrantingWaiters`), the `sync` waiters at the
    /// head are granted here (on a serial queue, the drain itself goes to the first one),
    /// and the drain is scheduled only for other items (`async` work, or a waiter whose
    /// work must run on the main thread).
    @usableFromInline
    final func finish(ownsRetain: Bool, grantingWaitersHere: Bool = false) {
        var current = state.load(ordering: .sequentiallyConsistent)
        while true {
            if QueueState(raw: current).isDirty {
                let (done, seen) = state.compareExchange(
                    expected: current, desired: current & ~QueueState.dirty, ordering: .sequentiallyConsistent)
                current = done ? current & ~QueueState.dirty : seen
                continue
            }
            if canStartWork(QueueState(raw: current)) {
                if grantingWaitersHere, let head = items.peekFirst(), let waiter = head.syncWaiter,
                   !waiter.runsByProxy {
                    if kind == .serial {
                        handDrainToSyncWaiter(waiter, ownsRetain: ownsRetain)
                        return
                    }
                    if kind == .concurrent {
                        drainConcurrent(waitersOnly: true)
                        current = state.load(ordering: .sequentiallyConsistent)
                        continue
                    }
                }
                if !ownsRetain { _ = retainedForPublishing(self) }
                scheduleOnTarget()
                return
            }
            let (done, seen) = state.compareExchange(
                expected: current, desired: current & ~QueueState.enqueued, ordering: .sequentiallyConsistent)
            if done {
                if ownsRetain { Unmanaged.passUnretained(self).release() }
                return
            }
            current = seen
        }
    }

    /// Gives a serial queue's drain, which the caller holds, to the `sync` waiter at the
    /// head of its list: one wake-up, as libdispatch's barrier hand-off to a sync waiter.
    /// The waiter then owns the `enqueued` bit and the retain that goes with it (taken
    /// here if the caller held the drain without one), and ends the drain itself
    /// (`endHandedSyncDrain`). Never through a drain job on the target: when every worker of
    /// the pool waits in `sync` on this queue, no worker is left to run one.
    final func handDrainToSyncWaiter(_ waiter: SyncWaiter, ownsRetain: Bool) {
        let taken = items.pop()
        if !ownsRetain { _ = retainedForPublishing(self) }
        waiter.grant(.handoff)
        withExtendedLifetime(taken) {}
    }

    /// Whether a drain would start something now. Called only by the drain's owner.
    private final func canStartWork(_ view: QueueState) -> Bool {
        if view.isStopped || items.isEmpty { return false }
        if kind == .concurrent {
            if view.isBarrierActive || isAtWidthLimit(view) { return false }
            if view.runningCount > 0, let head = items.peekFirst(), head.isBarrier { return false }
        }
        return true
    }
}
