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

/// A worker's own bounded FIFO ring of runnable jobs.
///
/// The owning worker pushes at the tail and pops at the head; other workers steal half of
/// it from the head. Head moves only by compare-and-swap, so a thief that read stale slots
/// fails its swap and reads again. Slots hold retained `Job` pointers.
final class LocalRunQueue: @unchecked Sendable {
    static let capacity: UInt32 = 256
    private static let mask: UInt32 = capacity - 1

    private let head = Atomic<UInt32>(0)
    private let tail = Atomic<UInt32>(0)
    private let slots: UnsafeMutablePointer<UInt>

    init() {
        slots = .allocate(capacity: Int(Self.capacity))
        slots.initialize(repeating: 0, count: Int(Self.capacity))
    }

    deinit { slots.deallocate() }

    /// Jobs in the ring now (a racy estimate for other threads).
    var count: Int {
        Int(tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring))
    }

    var isEmpty: Bool { count == 0 }

    /// How many jobs were ever pushed (wrapping): the difference of two readings counts
    /// the pushes between them. The owner's count; another thread reads one that may be
    /// behind (the watchdog, to see whether a stuck worker still posts).
    var tailPosition: UInt32 { tail.load(ordering: .relaxed) }

    /// Owner only. Returns false when the ring is full (the caller puts the job elsewhere).
    @inline(__always)
    func push(_ job: Job) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        if t &- h >= Self.capacity { return false }
        cnv_atomic_store_slot(slots + Int(t & Self.mask), UInt(bitPattern: job.retainedPointer()))
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Owner only, with room in the ring: `push` for a job whose reference the caller
    /// gives up (one it just took off a list). The reference moves into the ring: no
    /// retain, which `push`'s must be opaque (`retainedForPublishing`) and so kept a
    /// retain and a release per job the optimizer cancels here.
    @inline(__always)
    func pushOwned(_ job: consuming Job) {
        let t = tail.load(ordering: .relaxed)
        assert(t &- head.load(ordering: .acquiring) < Self.capacity, "Conveyor: pushOwned onto a full ring")
        cnv_atomic_store_slot(slots + Int(t & Self.mask), UInt(bitPattern: Unmanaged.passRetained(consume job).toOpaque()))
        tail.store(t &+ 1, ordering: .releasing)
    }

    /// Owner only: the oldest job.
    @inline(__always)
    func pop() -> Job? {
        let t = tail.load(ordering: .relaxed)
        var h = head.load(ordering: .acquiring)
        while h != t {
            let raw = cnv_atomic_load_slot(slots + Int(h & Self.mask))
            let (done, seen) = head.compareExchange(expected: h, desired: h &+ 1, ordering: .acquiringAndReleasing)
            if done { return Job.takeRetained(UnsafeMutableRawPointer(bitPattern: raw)!) }
            h = seen
        }
        return nil
    }

    /// Any thread: moves about half of this ring's jobs into `thief`'s ring (which must be
    /// empty, so at most half of it gets used, and owned by the caller) and returns one of them to run now.
    func steal(into thief: LocalRunQueue) -> Job? {
        assert(thief.isEmpty, "Conveyor: a steal into a ring that holds jobs could overwrite them")
        while true {
            let h = head.load(ordering: .acquiring)
            let t = tail.load(ordering: .acquiring)
            let available = t &- h
            if available == 0 || available > Self.capacity { return nil }
            let take = available - available / 2
            // Copy the slots into the thief's ring before claiming them (no allocation per
            // attempt): the thief's ring is empty and only its owner, the caller, pushes, so
            // slots past its tail are free. If the claim fails the copies are not published.
            // The first job runs now; the rest keep their order in the thief's ring.
            let thiefTail = thief.tail.load(ordering: .relaxed)
            let first = cnv_atomic_load_slot(slots + Int(h & Self.mask))
            for i in 1..<take {
                let raw = cnv_atomic_load_slot(slots + Int((h &+ i) & Self.mask))
                cnv_atomic_store_slot(thief.slots + Int((thiefTail &+ i &- 1) & Self.mask), raw)
            }
            if head.compareExchange(expected: h, desired: h &+ take, ordering: .acquiringAndReleasing).exchanged {
                if take > 1 { thief.tail.store(thiefTail &+ take &- 1, ordering: .releasing) }
                return Job.takeRetained(UnsafeMutableRawPointer(bitPattern: first)!)
            }
        }
    }
}
