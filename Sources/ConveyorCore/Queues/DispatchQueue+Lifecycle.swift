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

// Suspension, activation and targeting: the parts of the state word that stop a queue
// from starting work, and the calls that lift them.
extension DispatchQueue {
    /// Global queues and the main queue ignore suspension, as libdispatch's do (its
    /// `dispatch_suspend` and `dispatch_resume` return at once for global objects and
    /// root or base queues: a suspended main queue would hang `main.sync` callers, and the
    /// resume that follows would trap as an over-resume).
    final func suspendQueue() {
        if kind == .root || kind == .main { return }
        let before = QueueState(raw: state.wrappingAdd(QueueState.suspendUnit, ordering: .acquiringAndReleasing).oldValue)
        if before.suspendCount == QueueState.suspendMask - 1 {
            fatalError("Conveyor: too many nested suspend() calls on queue '\(label)'")
        }
    }

    final func resumeQueue() {
        if kind == .root || kind == .main { return }
        var current = state.load(ordering: .acquiring)
        while true {
            let view = QueueState(raw: current)
            if view.suspendCount == 0 {
                if view.isInactive {
                    activateQueue()
                    return
                }
                fatalError("Conveyor: over-resume of queue '\(label)' (resume() called more often than suspend())")
            }
            let desired = current - QueueState.suspendUnit
            let (done, seen) = state.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if done {
                // `sync` callers waiting at the head are granted from here, not by a drain job
                // that needs a free worker (every worker may be one of those callers).
                if !QueueState(raw: desired).isStopped && !items.isEmpty { wakeupGrantingWaiters() }
                return
            }
            current = seen
        }
    }

    final func activateQueue() {
        let before = QueueState(raw: state.bitwiseAnd(~QueueState.inactive, ordering: .sequentiallyConsistent).oldValue)
        guard before.isInactive else { return }
        if before.suspendCount == 0 && !items.isEmpty { wakeupGrantingWaiters() }
    }

    /// On a global queue or the main queue: nothing, as libdispatch's
    /// `dispatch_set_target_queue` does for them.
    final func retarget(to newTarget: DispatchQueue?) {
        if kind == .root || kind == .main { return }
        guard QueueState(raw: state.load(ordering: .acquiring)).isInactive else {
            fatalError("Conveyor: setTarget(queue:) called on active queue '\(label)'; create it with .initiallyInactive and set the target before activate()")
        }
        let target = resolvedTarget(newTarget, caller: "setTarget(queue:)")
        setTargetWord(target, isDefault: newTarget == nil)?.release()
    }

    /// `newTarget`, or for nil the default global queue, as libdispatch's
    /// `DISPATCH_TARGET_QUEUE_DEFAULT` is whatever the queue's QoS (a queue with a QoS of
    /// its own keeps running at it); traps when this queue is on its chain (`caller` names
    /// the call in the message).
    private func resolvedTarget(_ newTarget: DispatchQueue?, caller: String) -> DispatchQueue {
        let target = newTarget ?? DispatchQueue.root(for: .default)
        var level: DispatchQueue? = target
        while let current = level {
            if current === self {
                fatalError("Conveyor: \(caller) would make queue '\(label)' target itself")
            }
            level = current.targetQueue
        }
        return target
    }

    /// Installs `target` (retained) and returns the previous target's reference, which
    /// the caller releases or keeps. Written only while the queue is inactive or held
    /// alone (`RetargetJob`); the stores release what the readers' acquiring loads see.
    final func setTargetWord(_ target: DispatchQueue, isDefault: Bool) -> Unmanaged<DispatchQueue>? {
        // Relaxed: the readers that hold the queue order it by their acquiring claim of the
        // queue's state, which the release of the queue after this (the inactive queue's
        // activation, or the end of `RetargetJob`'s barrier) publishes.
        rootTargeted.store(target.kind == .root, ordering: .relaxed)
        defaultTargeted.store(isDefault, ordering: .relaxed)
        let old = targetWord.exchange(UInt(bitPattern: retainedForPublishing(target).toOpaque()), ordering: .acquiringAndReleasing)
        return UnsafeRawPointer(bitPattern: old).map { Unmanaged<DispatchQueue>.fromOpaque($0) }
    }

    /// Changes the target of an active queue in order with its work, as libdispatch's
    /// `dispatch_set_target_queue` does for a queue made by `dispatch_queue_create` (the
    /// C API's only caller): a barrier on the queue itself swaps the target when every
    /// item submitted before it has run, and the drain that ran it ends there, so the
    /// next items are scheduled on the new target. `retire` receives the old target,
    /// which must then live as long as this queue (see `RetargetJob`).
    /// An idle queue that is not suspended is retargeted here, before the call returns,
    /// as libdispatch's try-sync does (`_dispatch_barrier_trysync_or_async_f`): the
    /// barrier would otherwise wait for a CPU, or for ever behind a suspended old target.
    final func retargetInOrder(to newTarget: DispatchQueue?, retire: @escaping @Sendable (DispatchQueue) -> Void) {
        if kind == .root || kind == .main { return }
        let target = resolvedTarget(newTarget, caller: "dispatch_set_target_queue")
        if retargetIfIdle(target, isDefault: newTarget == nil, retire: retire) { return }
        enqueue(RetargetJob(queue: self, target: target, isDefault: newTarget == nil, retire: retire))
    }

    /// Claims the queue alone as an idle `sync` barrier would (only the queue itself, not
    /// its targets, as libdispatch's try-sync), swaps the target, and gives the queue
    /// back. The claim's acquiring compare-and-swap and the sequentially consistent
    /// accesses of `finish`, which ends it, order the swap with every drain and claim, as
    /// `RetargetJob`'s barrier does; an item pushed meanwhile is scheduled by `finish`, on
    /// the new target (the Dekker pairing of `wakeup`'s comment: the pusher links its
    /// item and reads `state`, `finish` writes `state` and reads the list).
    private func retargetIfIdle(_ target: DispatchQueue, isDefault: Bool, retire: (DispatchQueue) -> Void) -> Bool {
        // `enqueued` on both kinds: a push meanwhile then only marks the queue `dirty`
        // (`wakeup`), and `finish` below schedules it, on the new target. (A concurrent
        // queue held by `barrierActive` alone, as an idle `sync` barrier holds it, let
        // such a push take `enqueued` itself and schedule the drain on the old target:
        // found by a review, 3 blocks in 60,000 races left behind a suspended old target.)
        // `barrierActive` also keeps a concurrent queue's `sync` callers from taking width.
        let held: UInt64
        switch kind {
        case .serial: held = QueueState.enqueued
        case .concurrent: held = QueueState.enqueued | QueueState.barrierActive
        case .root, .main: return false
        }
        guard state.load(ordering: .relaxed) == 0, items.isEmpty,
              state.compareExchange(expected: 0, desired: held, ordering: .acquiring).exchanged
        else { return false }
        if let old = setTargetWord(target, isDefault: isDefault) { retire(old.takeRetainedValue()) }
        if kind == .concurrent { state.bitwiseAnd(~QueueState.barrierActive, ordering: .sequentiallyConsistent) }
        finish(ownsRetain: false, grantingWaitersHere: true)
        return true
    }

    /// The next queue of this queue's chain as `dispatchPrecondition` and
    /// `dispatch_assert_queue` see it: the target, but for a serial queue on its default
    /// target, the overcommitting global queue of that band, as libdispatch's default
    /// target of a serial queue is (`defaultTargeted`); for the main queue, the default
    /// overcommitting global queue.
    final var identityTarget: DispatchQueue? {
        // libdispatch's main queue targets the default overcommitting global queue.
        if kind == .main { return DispatchQueue.overcommitRoot(for: .default) }
        guard let target = targetQueue else { return nil }
        if kind == .serial && target.kind == .root && !target.isOvercommitRoot
            && defaultTargeted.load(ordering: .relaxed) {
            return DispatchQueue.overcommitRoot(for: target.band)
        }
        return target
    }

    /// The target as a number, for a drain to see whether a barrier it ran retargeted the
    /// queue (`RetargetJob`); read by the drain's owner only.
    @inline(__always)
    final var targetIdentity: UInt { targetWord.load(ordering: .relaxed) }
}

/// The barrier that retargets an active queue (`retargetInOrder`). It runs while the queue
/// is held alone (a serial queue's drain, a concurrent queue's barrier), so it is ordered
/// with every drain, `sync` claim and `scheduleOnTarget` of the queue: those that hold the
/// queue read `targetQueue` and `isRootTargeted` after acquiring it, which the barrier's
/// release of the queue publishes. Readers that walk the chain without holding it
/// (`chainDepth`, `isMainBound`, the deadlock check, `getSpecific`, preconditions, the
/// C finalizer's target at the last `dispatch_release`) may
/// still see the old target, as in libdispatch, whose drains also read a target that can
/// change: `syncOnCallingThread` re-reads each level's target after acquiring it and
/// retries when the chain it counted was wrong, and the sync fast paths re-check
/// `isRootTargeted` after their claim. So that such a reader never follows a freed
/// target, the old target is handed to `retire`, which keeps it for the queue's life.
final class RetargetJob: Job, @unchecked Sendable {
    private let queue: DispatchQueue
    private let target: DispatchQueue
    private let isDefault: Bool
    private let retire: @Sendable (DispatchQueue) -> Void

    init(queue: DispatchQueue, target: DispatchQueue, isDefault: Bool, retire: @escaping @Sendable (DispatchQueue) -> Void) {
        self.queue = queue
        self.target = target
        self.isDefault = isDefault
        self.retire = retire
        super.init(band: queue.band, isBarrier: true)
    }

    override func run(on _: DispatchQueue?) {
        if let old = queue.setTargetWord(target, isDefault: isDefault) { retire(old.takeRetainedValue()) }
    }
}
