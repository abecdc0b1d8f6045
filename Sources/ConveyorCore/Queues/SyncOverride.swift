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
// Two parts:
// - A drain scheduled while such callers wait goes to the pool at their band
//   (`raisedForSyncWaiters`, read by `scheduleOnTarget`).
// - A drain already waiting in the pool gets a second job, a `DrainStealerJob`, at the
//   caller's band. Both carry the scheduling's ticket (`drainTicket`, even while it may be
//   claimed); each claims it with a compare-and-swap to the odd value before draining, so
//   exactly one drains. A stealer holds its own retain of the queue: when it wins, the
//   drain job it beat is still in the pool (or a worker's ring) and gets that retain, to
//   drop when it runs and finds its ticket taken; the queue makes a new drain job for its
//   next scheduling. A stealer that loses drops its own.
//
// Pairing: the holder of the `enqueued` bit writes everything the next drainer needs and
// then stores the ticket (releasing, `publishDrainTicket`); the claim's compare-and-swap
// acquires it. A caller links its waiter first and then reads the ticket: an odd ticket
// means a drainer already claimed it and will find the waiter (or `finish` schedules the
// queue again, raised, as the waiter's count was raised before its link).
extension DispatchQueue {
    private static let overrideCountMask: UInt32 = 0xFF_FFFF
    private static let overrideBandShift: UInt32 = 24

    /// The band this root-targeted queue's drain is scheduled at when nobody raises it: its
    /// own QoS's, or without one, the band of the global queue it targets now.
    final var drainBandUnraised: QoSBand {
        if hasOwnQoS { return band }
        guard let root = UnsafeRawPointer(bitPattern: targetWord.load(ordering: .acquiring)) else { return band }
        return Unmanaged<DispatchQueue>.fromOpaque(root)._withUnsafeGuaranteedRef { $0.band }
    }

    /// `band`, or the band of the more important `sync` callers waiting here. Called by
    /// the holder of the `enqueued` bit.
    @inline(__always)
    final func raisedForSyncWaiters(_ band: QoSBand) -> QoSBand {
        let word = syncOverride.load(ordering: .relaxed)
        guard word & Self.overrideCountMask != 0,
              let waiting = QoSBand(rawValue: UInt8(truncatingIfNeeded: word >> Self.overrideBandShift)),
              waiting.rawValue < band.rawValue else { return band }
        return waiting
    }

    /// The next scheduling's ticket, published: from here it may be claimed. Called by the
    /// holder of the `enqueued` bit, last before it gives the drain job to the pool.
    @inline(__always)
    final func publishDrainTicket() -> UInt64 {
        let ticket = (drainTicket.load(ordering: .relaxed) | 1) &+ 1
        drainTicket.store(ticket, ordering: .releasing)
        return ticket
    }

    /// Claims the scheduling `ticket` stands for; false when another job claimed it.
    @inline(__always)
    final func claimScheduledDrain(_ ticket: UInt64) -> Bool {
        drainTicket.compareExchange(expected: ticket, desired: ticket | 1, ordering: .acquiring).exchanged
    }

    /// Whether a `sync` caller on this queue at `callerBand` should raise its drain: the
    /// queue is drained on the pool (its target is a global queue) at a less important band.
    final func syncCallerRaisesDrain(_ callerBand: QoSBand) -> Bool {
        kind != .root && kind != .main && isRootTargeted && callerBand.rawValue < drainBandUnraised.rawValue
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

    /// After a `sync` caller at `callerBand` linked its waiter: if the drain still waits in
    /// the pool, posts a stealer for it at that band.
    final func postDrainStealer(at callerBand: QoSBand) {
        let ticket = drainTicket.load(ordering: .acquiring)
        guard ticket != 0 && ticket & 1 == 0 else { return }
        WorkerPool.shared.submit(DrainStealerJob(queue: self, ticket: ticket, band: callerBand))
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
        // The drain job this one beat is still queued: it gets this job's retain (see
        // `QueueDrainJob.run`), and is never scheduled again.
        queue.drainJob = nil
        queue.drainScheduled()
    }
}
