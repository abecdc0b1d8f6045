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

/// The pool's shared FIFO for one priority band: jobs submitted from threads that are not
/// workers, and overflow from full worker rings.
///
/// A producer takes a position with one compare-and-swap (`SegmentedJobQueue.push`; at a
/// segment's end it may wait for the producer installing the next one); consumers take
/// turns through a try-flag, so a worker that finds the flag taken simply looks elsewhere
/// instead of waiting.
final class InjectionQueue: @unchecked Sendable {
    private let list = SegmentedJobQueue()
    private let consumerBusy = Atomic<Bool>(false)
    /// When this band was last served, or became non-empty (monotonic ns; for aging).
    private let lastServed = Atomic<UInt64>(0)

    init() {}

    /// This band's pass in aging's stride scheduling (`AgingTurns`); relaxed, a heuristic.
    let agingPass = Atomic<UInt64>(0)

    /// Whether more than `nanoseconds` passed before `now` since a job was last taken from
    /// this queue, or since it last became non-empty (`lastServed` may be a hair newer
    /// than `now`: another thread just served it). For aging; says nothing of whether the
    /// queue holds work now.
    func waitedUnserved(_ nanoseconds: UInt64, at now: UInt64) -> Bool {
        let served = lastServed.load(ordering: .relaxed)
        return now > served && now - served > nanoseconds
    }

    var isEmpty: Bool { list.isEmpty }

    /// Appends a job whose reference the caller hands over; returns true when the queue
    /// was empty before (see `WorkerPool.inject`).
    @discardableResult
    func push(retained job: Unmanaged<Job>) -> Bool {
        // The wait that aging measures starts when the band becomes non-empty.
        guard list.push(retained: job) else { return false }
        lastServed.store(Clock.monotonicNanoseconds(), ordering: .relaxed)
        return true
    }

    /// Takes the oldest job and moves up to `batch` more into `ring` (the caller's own);
    /// `moved` is set to how many it moved.
    func pop(movingUpTo batch: Int, into ring: LocalRunQueue?, moved: inout Int) -> Job? {
        moved = 0
        if list.isEmpty { return nil }
        guard consumerBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return nil
        }
        // Taking a batch: let a producer in mid-burst fill it first (see `awaitSomeJobs`);
        // the aging path takes one job and does not wait.
        if let ring, Self.hasRoom(ring) { list.awaitSomeJobs(UInt64(batch) + 1) }
        let first = list.pop()
        if first != nil { lastServed.store(Clock.monotonicNanoseconds(), ordering: .relaxed) }
        if first != nil, let ring {
            while moved < batch, Self.hasRoom(ring), let job = list.pop() {
                ring.pushOwned(job)   // the ring is at most half full
                moved += 1
            }
        }
        consumerBusy.store(false, ordering: .releasing)
        return first
    }

    /// Whether `ring` takes another job from here: it is filled to half its capacity at
    /// most, so the push cannot fail.
    @inline(__always)
    private static func hasRoom(_ ring: LocalRunQueue) -> Bool {
        ring.count < Int(LocalRunQueue.capacity) / 2
    }
}
