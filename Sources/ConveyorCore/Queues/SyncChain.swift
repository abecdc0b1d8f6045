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

// `sync` through a chain of target queues, run on the caller's thread.
//
// Invariant (issue 11, finding 1): a `sync` closure runs on the thread that called
// `sync`, whatever the queue's targets are; only the main queue (and queues whose
// targets lead to it) may run it elsewhere. A recursive lock the caller holds, its
// thread-locals and `dispatchPrecondition(.onQueue(target))` must all see the caller's
// thread. So, as libdispatch's `_dispatch_sync_recurse` does, the caller acquires the
// whole chain itself, bottom first — the queue (its drain, a unit of width, or its
// barrier), then each level above it up to the global queue (a serial level's drain,
// or one unit of a concurrent level's width) — runs the closure with a frame for every
// level, and gives the levels back top first. A drain that reaches a waiter hands it
// that level and goes on (or stops, for a serial level); it never runs the waiter's work.
//
// Lock order: a drain holds a level and then the child queue whose drain job it popped;
// a sync caller holds a child and then waits for its target. No cycle: a child the
// caller holds has no drain job on its target (the caller owns its `enqueued` bit, so
// wake-ups only set `dirty`), and a drain that hands a child to a waiter returns at once.
extension DispatchQueue {
    /// How a `sync` caller holds one level of its chain.
    enum SyncHold {
        /// A serial queue's drain, claimed on an idle queue (no retain taken).
        case claimedDrain
        /// A serial queue's drain, handed over with a retain (by the drain job, the previous
        /// holder, a resume, or this waiter's own wakeup: `handDrainToSyncWaiter`).
        case handedDrain
        /// One unit of a concurrent queue's width.
        case width
        /// A concurrent queue's barrier.
        case barrier
    }

    /// One level the caller holds.
    struct SyncLevel {
        let queue: Unmanaged<DispatchQueue>
        let hold: SyncHold
    }

    /// Whether this queue is the main queue or its targets lead to it.
    final var isMainBound: Bool {
        var level: DispatchQueue? = self
        while let current = level {
            if current.kind == .main { return true }
            level = current.targetQueue
        }
        return false
    }

    /// Acquires this queue and every level above it, runs `body` on the calling thread
    /// with a frame for each level (the queue itself innermost), then releases them.
    final func syncOnCallingThread(barrier: Bool, band: QoSBand, _ body: () -> Void) {
        while !syncOnCallingThread(barrier: barrier, band: band, body, depth: chainDepth) {}
    }

    /// Levels from this queue up to (not counting) its global queue.
    private final var chainDepth: Int {
        var depth = 0
        var level: DispatchQueue? = self
        while let current = level, current.kind != .root {
            depth += 1
            level = current.targetQueue
        }
        return depth
    }

    /// One attempt with room for `depth` levels. Returns false, holding nothing, when the
    /// chain turned out longer: a level still inactive when counted was given a new
    /// target before it was activated, while this thread waited for it.
    private final func syncOnCallingThread(barrier: Bool, band: QoSBand, _ body: () -> Void, depth: Int) -> Bool {
        withUnsafeTemporaryAllocation(of: SyncLevel.self, capacity: depth) { levels in
            var held = 0
            var current: DispatchQueue = self
            var complete = true
            while current.kind != .root {
                let isBottom = held == 0
                // A level this thread already holds shared (it runs an item of that
                // concurrent queue): it and everything above it are held already.
                if !isBottom && currentThreadHolding(current) == .shared { break }
                if held == depth {
                    complete = false
                    break
                }
                let hold = current.acquireForSync(barrier: isBottom && barrier, band: band)
                (levels.baseAddress! + held).initialize(to: SyncLevel(queue: .passUnretained(current), hold: hold))
                held += 1
                current = current.targetQueue!
            }
            if complete { Self.runWithFrames(levels, from: held - 1, body) }
            // Top first: the next `sync` caller of a lower level, handed that level when
            // it is released, then usually finds the levels above idle and takes them
            // without waiting (one wake-up per caller, not one per level).
            for index in stride(from: held - 1, through: 0, by: -1) {
                let taken = (levels.baseAddress! + index).move()
                taken.queue.takeUnretainedValue().releaseAfterSync(taken.hold)
            }
            return complete
        }
    }

    /// Pushes the frames of `levels[0...top]`, outermost (the top of the chain) first.
    private static func runWithFrames(_ levels: UnsafeMutableBufferPointer<SyncLevel>, from top: Int, _ body: () -> Void) {
        if top < 0 { return body() }
        let level = levels[top]
        DrainFrame.with(level.queue.takeUnretainedValue(), exclusive: level.hold != .width) {
            runWithFrames(levels, from: top - 1, body)
        }
    }

    /// Takes this level for a `sync` caller: at once when the queue is idle, else by
    /// standing in its item list (FIFO with `async` items) until its drain hands it over.
    private final func acquireForSync(barrier: Bool, band: QoSBand) -> SyncHold {
        switch kind {
        case .serial:
            if state.load(ordering: .relaxed) == 0 && items.isEmpty
                && state.compareExchange(expected: 0, desired: QueueState.enqueued, ordering: .acquiring).exchanged {
                return .claimedDrain
            }
        case .concurrent:
            if barrier {
                if state.load(ordering: .relaxed) == 0 && items.isEmpty
                    && state.compareExchange(expected: 0, desired: QueueState.barrierActive, ordering: .acquiring).exchanged {
                    return .barrier
                }
            } else if items.isEmpty && tryReserveWidth() {
                return .width
            }
        case .root, .main:
            fatalError("Conveyor: sync chain reached '\(label)', which it never acquires")
        }
        let waiter = SyncWaiter(band: band, isBarrier: barrier && kind == .concurrent, runsByProxy: false)
        // A caller more important than the drain it waits for raises it (SyncOverride.swift);
        // a thread outside the pool counts as default, as a global queue's `sync` sees it.
        let callerBand = Worker.current?.runningBand ?? .default
        let raised = queueRaisedBySync(at: callerBand)
        raised?.beginSyncOverride(callerBand)
        defer { raised?.endSyncOverride() }
        // The push that makes the list non-empty wakes the queue, which may grant this
        // very waiter at once (`wakeupGrantingWaiters`).
        syncWaitersQueued.add(1, ordering: .relaxed)
        if items.push(waiter) { wakeupGrantingWaiters() }
        raised?.postDrainStealer(at: callerBand)
        switch waiter.waitForGrant() {
        case .handoff: return .handedDrain
        case .width: return .width
        case .barrier: return .barrier
        case .proxied, .none: fatalError("Conveyor: sync waiter on '\(label)' woken without a grant")
        }
    }

    /// Gives a level back: the drain is ended (and scheduled again if work waits), the
    /// width unit or the barrier is returned.
    private final func releaseAfterSync(_ hold: SyncHold) {
        switch hold {
        case .claimedDrain: endClaimedSyncDrain()
        case .handedDrain: endHandedSyncDrain()
        case .width: itemCompleted()
        case .barrier: barrierCompleted()
        }
    }

    /// Ends a `sync` caller's hold of a serial queue's drain that was handed to it (with
    /// a retain; a drain it claimed on an idle queue ends in `endClaimedSyncDrain`, as on
    /// the fast path). When the next item is another `sync` caller, the drain goes
    /// straight to it: one wake-up, as libdispatch's barrier hand-off does, instead of
    /// scheduling the drain on the target for a worker that would only hand it over (and
    /// that may not exist: every worker may be waiting in `sync` here). A waiter that
    /// links itself just after the look is not lost: its push finds the queue enqueued and
    /// sets `dirty` (`wakeup`), and `finish` looks again, granting it here too.
    private final func endHandedSyncDrain() {
        finish(ownsRetain: true, grantingWaitersHere: true)
    }
}

/// How many `sync` callers had to stand in a queue's item list (contended `sync`), for
/// tests that must know contention happened. Touched only on that slow path.
let syncWaitersQueued = Atomic<Int>(0)
