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

extension DispatchQueue {
    /// Submits work and waits until it has run, returning its result. The work runs on
    /// the calling thread (at once on an idle queue), whatever the queue's targets are;
    /// only work for the main queue (or a queue targeting it) runs on the main thread.
    /// Calling `sync` on the queue the current thread is running (or one that targets
    /// it) would deadlock, and traps.
    public func sync<T>(execute work: () throws -> T) rethrows -> T {
        try syncImplementation(barrier: false, band: band, work, rescue: { throw $0 })
    }

    /// Like `sync(execute:)`, with flags: `.barrier` makes the work run alone on a
    /// concurrent queue.
    public func sync<T>(flags: DispatchWorkItemFlags, execute work: () throws -> T) rethrows -> T {
        try syncImplementation(barrier: flags.contains(.barrier), band: band, work, rescue: { throw $0 })
    }

    /// Submits a closure and waits until it has run.
    public func sync(execute block: () -> Void) {
        syncImplementation(barrier: false, band: band, block, rescue: { _ in })
    }

    /// Runs a work item on this queue and waits until it has run.
    public func sync(execute workItem: DispatchWorkItem) {
        syncImplementation(barrier: workItem.flags.contains(.barrier), band: band, { workItem.perform() }, rescue: { _ in })
    }

    @usableFromInline
    final func syncImplementation<T>(
        barrier: Bool, band: QoSBand, _ work: () throws -> T, rescue: (any Error) throws -> T
    ) rethrows -> T {
        // The state is read (acquiring) before `isRootTargeted`: an active queue's state
        // was published by `activateQueue`'s release, after `retarget` wrote the flag, so
        // a queue seen active has its final target here. (Read the other way round, a
        // `sync` racing `setTarget` + `activate` could read the old flag and then find the
        // queue active and idle, and run without holding its new serial target.)
        let seen = state.load(ordering: .acquiring)
        switch kind {
        case .root:
            // Runs here, but as the global queue's work: getSpecific, dispatchPrecondition
            // and dispatch_get_current_queue see the global queue, not the caller's queue
            // (as on libdispatch, whose sync pushes the queue it runs on).
            return try DrainFrame.with(self, exclusive: false) { try work() }
        // Each fast path reads `isRootTargeted` again once it holds the queue: a queue made
        // by `dispatch_queue_create` can be retargeted while active (`RetargetJob`, which
        // runs holding the queue and publishes the new target with the release that frees
        // it, which the claim here acquires), and the first read may predate that.
        case .serial where isRootTargeted:
            if seen == 0 && items.isEmpty
                && state.compareExchange(expected: 0, desired: QueueState.enqueued, ordering: .acquiring).exchanged {
                defer { endClaimedSyncDrain() }
                if isRootTargeted { return try DrainFrame.with(self, exclusive: true) { try work() } }
            }
        case .concurrent where isRootTargeted:
            if barrier {
                if seen == 0 && items.isEmpty
                    && state.compareExchange(expected: 0, desired: QueueState.barrierActive, ordering: .acquiring).exchanged {
                    defer { barrierCompleted() }
                    if isRootTargeted { return try DrainFrame.with(self, exclusive: true) { try work() } }
                }
            } else if !QueueState(raw: seen).isInactive && items.isEmpty && tryReserveWidth() {
                defer { itemCompleted() }
                if isRootTargeted { return try DrainFrame.with(self, exclusive: false) { try work() } }
            }
        default:
            break
        }
        return try syncSlow(barrier: barrier, band: band, work, rescue: rescue)
    }

    /// Ends the hold of a serial queue's drain that `sync` claimed on an idle queue (the
    /// fast path here, or a level of a `sync` chain, SyncChain.swift).
    /// Nothing came meanwhile: one compare-and-swap gives the queue back (no retain to
    /// drop: the claim took none). A push after the look either sets `dirty` first, and
    /// the swap fails, or finds the queue given back and takes it itself. Else `finish`,
    /// which hands the drain to a `sync` caller at the head from here, not through a drain
    /// job on the pool: every worker may be such a caller.
    @inline(__always)
    final func endClaimedSyncDrain() {
        if items.isEmpty
            && state.compareExchange(expected: QueueState.enqueued, desired: 0, ordering: .releasing).exchanged {
            return
        }
        finish(ownsRetain: false, grantingWaitersHere: true)
    }

    /// Takes one unit of a concurrent queue's width if no barrier holds it and the width
    /// limit allows.
    final func tryReserveWidth() -> Bool {
        var current = state.load(ordering: .relaxed)
        while true {
            let view = QueueState(raw: current)
            if view.isStopped || view.isBarrierActive || isAtWidthLimit(view) { return false }
            let (done, seen) = state.compareExchange(
                expected: current, desired: current &+ QueueState.runningUnit, ordering: .acquiring)
            if done { return true }
            current = seen
        }
    }

    @usableFromInline
    final func syncSlow<T>(
        barrier: Bool, band: QoSBand, _ work: () throws -> T, rescue: (any Error) throws -> T
    ) rethrows -> T {
        let holding = currentThreadHolding(self)
        if kind == .concurrent && !barrier && holding == .shared {
            return try work()   // re-entrant non-barrier sync: this thread already has width
        }
        checkSyncWouldNotDeadlock(barrier: barrier)

        var result: T?
        var failure: (any Error)?
        if isMainBound {
            withoutActuallyEscaping(work) { escapable in
                syncByProxy(barrier: barrier, band: band) {
                    do { result = try escapable() } catch { failure = error }
                }
            }
        } else {
            // Not escaping: nothing is allocated when every level is idle.
            syncOnCallingThread(barrier: barrier, band: band) {
                do { result = try work() } catch { failure = error }
            }
        }
        if let failure { return try rescue(failure) }
        return result!
    }

    /// `sync` on the main queue or a queue whose targets lead to it: the work must run on
    /// the main thread, so the drain there runs it and then wakes the caller. This is the
    /// only case where a `sync` closure runs on another thread than the caller's.
    private final func syncByProxy(barrier: Bool, band: QoSBand, _ body: @escaping () -> Void) {
        let waiter = SyncWaiter(band: band, isBarrier: barrier && kind == .concurrent, runsByProxy: true)
        waiter.body = body
        enqueue(waiter)
        let grant = waiter.waitForGrant()
        ensure(grant == .proxied, "Conveyor: sync waiter of a main-bound queue woken without running its work")
        waiter.body = nil
    }

    /// How the calling thread holds a queue now.
    enum Holding { case none, shared, exclusive }

    final func currentThreadHolding(_ queue: DispatchQueue) -> Holding {
        var holding = Holding.none
        DrainFrame.forEach { framed, exclusive in
            if framed === queue {
                holding = exclusive ? .exclusive : .shared
                return false
            }
            return true
        }
        return holding
    }

    /// Traps when waiting for this queue could never end because the calling thread
    /// itself holds a queue the work needs.
    private final func checkSyncWouldNotDeadlock(barrier: Bool) {
        if kind == .main && ThreadInfo.isMainThread {
            fatalError("Conveyor: sync called on the main queue from the main thread (this would deadlock)")
        }
        var queue: DispatchQueue? = self
        var needsExclusive = kind != .concurrent || barrier
        while let level = queue, level.kind != .root {
            // The main thread holds the main queue all the time (it is bound to it, as in
            // libdispatch), so `sync` onto a queue that leads to the main queue from the
            // main thread could never be served.
            let holding = level.kind == .main && ThreadInfo.isMainThread ? .exclusive : currentThreadHolding(level)
            if holding == .exclusive || (holding == .shared && needsExclusive) {
                fatalError(
                    "Conveyor: sync called on queue '\(label)' already owned by the current thread"
                    + (level === self ? "" : " (through its target '\(level.label)')") + " (this would deadlock)")
            }
            queue = level.targetQueue
            needsExclusive = queue?.kind != .concurrent   // a child's drain holds a serial target alone
        }
    }
}
