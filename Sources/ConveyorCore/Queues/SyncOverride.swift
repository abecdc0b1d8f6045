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

// QoS override for `sync`: a caller of a more important band that waits on a queue whose
// drain waits in the pool at a less important one does not wait for that band.
//
// libdispatch raises the queue (its `dq_state` keeps the most important QoS waiting) and
// pushes an "override stealer" onto the root queue of the caller's QoS, which drains the
// queue if it is still enqueued below (`_dispatch_root_queue_push_override_stealer`).
// Without it a user-initiated `sync` onto a background serial queue holding 1 ms of work
// returned after 146-196 ms beside busy default work (libdispatch: 2-7 ms), and four
// default blocks in `sync` on a background queue whose drain waited on the background
// band held every thread at a cap of four (the composition tester, program 182325181).
//
// Two parts, on the queue whose drain the caller depends on in the pool: the queue itself
// when it targets a global queue, else the first queue up its targets that does (the
// waiter's grant needs that queue's drain to reach the drain job of the level below):
// - A drain scheduled while such callers wait goes to the pool at their band
//   (`raisedForSyncWaiters`, read by `scheduleOnTarget`).
// - A drain already waiting in the pool gets a second job, a `DrainStealerJob`, at the
//   caller's band. Both carry the scheduling's ticket (`drainTicket`, even while it may be
//   claimed); each claims it with a compare-and-swap to the odd value before draining, so
//   exactly one drains. A stealer holds its own retain of the queue: when it wins, the
//   drain job it beat is still to run (in the pool, a worker's ring, or not yet submitted
//   by the holder that published the ticket) and gets that retain, to drop when it runs
//   and finds its ticket taken; the queue makes a new drain job for its next scheduling.
//   A stealer that loses drops its own.
//
// Pairing:
// - The holder of the `enqueued` bit writes everything the next drainer needs and then
//   stores the ticket (`publishDrainTicket`); the claim's compare-and-swap acquires it.
// - Dekker, between a caller and the holder scheduling the drain: the caller counts
//   itself (`beginSyncOverride`, a sequentially consistent compare-and-swap) and then
//   reads the ticket (`postDrainStealer`); the holder stores the ticket and then reads
//   the count (`raisedForSyncWaiters`), both sequentially consistent. So either the
//   holder sees the caller and schedules the drain at its band, or the caller sees the
//   new ticket and posts a stealer (or both). Read the other way round, a holder that
//   read the count just before the caller counted itself, and published its ticket just
//   after the caller looked, left the drain at the queue's band with no stealer (found
//   by review).
extension DispatchQueue {
    private static let overrideCountMask: UInt32 = 0xFF_FFFF
    private static let overrideBandShift: UInt32 = 24

    /// The band this root-targeted queue's drain is scheduled at when nobody raises it: its
    /// own QoS's, or without one, the band of the global queue it targets now.
    final var drainBandUnraised: QoSBand {
        if hasOwnQoS { return band }
        return withGlobalQueueTarget { $0.band } ?? band
    }

    /// `band`, or the band of the more important `sync` callers waiting here. Called by
    /// the holder of the `enqueued` bit after `publishDrainTicket` (see the Dekker pairing
    /// above). The band is the most important of those that waited since the count was
    /// last zero: a drain may stay raised a while after its most important caller left.
    @inline(__always)
    final func raisedForSyncWaiters(_ band: QoSBand) -> QoSBand {
        let word = syncOverride.load(ordering: .sequentiallyConsistent)
        guard word & Self.overrideCountMask != 0,
              let waiting = QoSBand(rawValue: UInt8(truncatingIfNeeded: word >> Self.overrideBandShift)),
              waiting.rawValue < band.rawValue else { return band }
        return waiting
    }

    /// The next scheduling's ticket, published: from here it may be claimed. Called by the
    /// holder of the `enqueued` bit once the queue is ready for the next drainer, before
    /// it reads the band (`raisedForSyncWaiters`) and gives the drain job to the pool.
    /// Sequentially consistent: it releases what the next drainer needs, and it is the
    /// store half of the Dekker pairing above.
    @inline(__always)
    final func publishDrainTicket() -> UInt64 {
        let ticket = (drainTicket.load(ordering: .relaxed) | 1) &+ 1
        drainTicket.store(ticket, ordering: .sequentiallyConsistent)
        return ticket
    }

    /// Claims the scheduling `ticket` stands for; false when another job claimed it.
    @inline(__always)
    final func claimScheduledDrain(_ ticket: UInt64) -> Bool {
        drainTicket.compareExchange(expected: ticket, desired: ticket | 1, ordering: .acquiring).exchanged
    }

    /// The queue a `sync` caller at `callerBand` waiting on this queue raises, if any: this
    /// queue or the first up its targets whose target is a global queue (the one scheduled
    /// in the pool), when its drain runs at a less important band. A strong reference: the
    /// caller keeps it until its wait ends (`endSyncOverride`).
    final func queueRaisedBySync(at callerBand: QoSBand) -> DispatchQueue? {
        var level: DispatchQueue = self
        while !level.isRootTargeted {
            guard let target = level.targetQueue, target.kind == .serial || target.kind == .concurrent else { return nil }
            level = target
        }
        return callerBand.rawValue < level.drainBandUnraised.rawValue ? level : nil
    }

    /// Counts a `sync` caller at `callerBand` as waiting here, before its waiter is linked.
    final func beginSyncOverride(_ callerBand: QoSBand) {
        var current = syncOverride.load(ordering: .relaxed)
        while true {
            let count = current & Self.overrideCountMask
            let waiting = count == 0 ? callerBand.rawValue : min(UInt8(truncatingIfNeeded: current >> Self.overrideBandShift), callerBand.rawValue)
            ensure(count < Self.overrideCountMask, "Conveyor: more than 16 million sync callers wait on one queue")
            let desired = UInt32(waiting) << Self.overrideBandShift | (count + 1)
            let (done, seen) = syncOverride.compareExchange(expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if done { return }
            current = seen
        }
    }

    /// The caller counted by `beginSyncOverride` was granted the queue. The last one clears
    /// the band.
    final func endSyncOverride() {
        var current = syncOverride.load(ordering: .relaxed)
        while true {
            let count = current & Self.overrideCountMask
            let desired = count == 1 ? 0 : current - 1
            let (done, seen) = syncOverride.compareExchange(expected: current, desired: desired, ordering: .relaxed)
            if done { return }
            current = seen
        }
    }

    /// After a `sync` caller at `callerBand` counted itself and linked its waiter: if the
    /// drain waits in the pool, unclaimed, posts a stealer for it at that band (the load
    /// half of the Dekker pairing above).
    final func postDrainStealer(at callerBand: QoSBand) {
        let ticket = drainTicket.load(ordering: .sequentiallyConsistent)
        guard ticket != 0 && ticket & 1 == 0 else { return }
        let stealer = DrainStealerJob(queue: self, ticket: ticket, band: callerBand)
        // Of an overcommitting global queue's work, as the drain job is.
        if let overcommit = withGlobalQueueTarget({ $0.isOvercommitRoot }) { stealer.isOvercommit = overcommit }
        drainStealersPosted.add(1, ordering: .relaxed)
        WorkerPool.shared.submit(stealer)
    }
}

/// A second job for a scheduling of a queue's drain, at the band of a more important
/// `sync` caller waiting there (see SyncOverride.swift). Whichever of it and the queue's
/// `QueueDrainJob` claims the ticket first drains.
final class DrainStealerJob: Job, @unchecked Sendable {
    /// Retained: the queue must outlive this job whether it wins or loses.
    private let queue: Unmanaged<DispatchQueue>
    private let ticket: UInt64

    init(queue: DispatchQueue, ticket: UInt64, band: QoSBand) {
        self.queue = .passRetained(queue)
        self.ticket = ticket
        // A queue's drain, as far as the pool is concerned: it may take the caller's LIFO
        // slot, and a caller that then blocks hands it off with the rest of its posts.
        super.init(band: band, isQueueDrain: true)
    }

    override func run(on parent: DispatchQueue?) {
        let queue = queue.takeUnretainedValue()
        guard queue.claimScheduledDrain(ticket) else {
            self.queue.release()   // the drain job claimed it, or a stealer before this one
            return
        }
        // The drain job this one beat is still to run: it gets this job's retain (see
        // `QueueDrainJob.run`), and is never scheduled again.
        drainStealersWon.add(1, ordering: .relaxed)
        queue.drainJob = nil
        queue.drainScheduled()
    }
}

/// How many stealers were posted and how many drained (tests read them to know that the
/// race they exercise happened). Touched only on the contended, raised `sync` path.
let drainStealersPosted = Atomic<Int>(0)
let drainStealersWon = Atomic<Int>(0)
