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

/// A multi-producer, single-consumer FIFO of jobs kept in arrays ("segments") of slots:
/// the storage of the pool's shared queues (`InjectionQueue`).
///
/// Why slots and not `JobList`'s links: a consumer that moves a batch of jobs from a
/// linked list reads the `next` link inside each job, and each job's line was last written
/// by the submitting core, so a batch of 16 was 16 dependent cache misses (perf: 17 % of
/// the workers' time in a `dispatch_group_async_f` burst on one load). Here the consumer
/// reads slot words, eight to a line, and never touches a job it only moves.
///
/// Producers are not lock-free at a segment's end: the producer that takes its last slot
/// installs the next segment, and the others wait for it (a few instructions; if the
/// installer is preempted, they yield until it runs again, as a `JobList` consumer waits
/// for a link). Elsewhere a push is one compare-and-swap, retried only when another
/// producer took the position first.
///
/// Layout: the queue hands out *positions*. Position `p` lives in segment `p / lap`, slot
/// `p % lap`; a segment has `lap - 1` slots and its last word holds the next segment's
/// address. The position whose slot would be `lap - 1` is a gap: the producer that takes
/// the segment's last slot installs the next segment (allocated before it took its
/// position) and moves the tail over the gap; producers that see the gap wait (above).
///
/// The tail word is `position << 1 | emptyMark`. The consumer sets `emptyMark` (with a
/// compare-and-swap on the tail word) when it takes the last job; a producer's
/// compare-and-swap clears it and tells the producer that the queue was empty, so that it,
/// and only it, wakes a consumer (as `JobList.push` reports an empty list).
///
/// Invariant: every position below the tail's is taken by exactly one producer, which
/// writes its slot once; the consumer reads each slot once, in order, waiting out a
/// producer between its compare-and-swap and its slot store; a segment is freed by the
/// consumer after it read the segment's last slot, which its producer writes last.
struct SegmentedJobQueue: ~Copyable, @unchecked Sendable {
    /// Positions per segment (a power of two): `lap - 1` slots and the gap.
    static let lap: UInt64 = 256
    /// Slots per segment.
    static let slotsPerSegment = Int(lap) - 1
    /// A segment's size: its slots and the next segment's address (2 KiB).
    static let segmentBytes = Int(lap) * MemoryLayout<UInt>.stride
    /// Bit 0 of the tail word: the consumer found the queue empty at this position.
    private static let emptyMark: UInt64 = 1

    /// `position << 1 | emptyMark`: the next position a producer takes.
    private let tail = Atomic<UInt64>(emptyMark)
    /// The segment holding the tail's position (valid while that position is not a gap).
    /// Stored before the tail moves past the gap (release), loaded after the tail (acquire).
    private let tailSegment: Atomic<UnsafeMutableRawPointer>
    /// Keeps the producers' words and the consumer's on different cache lines.
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
    // The consumer's state. Only the consumer of the moment reads or writes it (relaxed);
    // the next consumer sees it through the hand-over of `InjectionQueue`'s consumer flag.
    /// The next position to read.
    private let head = Atomic<UInt64>(0)
    /// The segment holding `head`.
    private let headSegment: Atomic<UnsafeMutableRawPointer>
    /// A tail position the consumer has seen: every position below it is taken, so the
    /// consumer reloads the shared tail word only when it catches up with this one.
    private let knownTail = Atomic<UInt64>(0)
    /// One emptied, zeroed segment kept for the next producer that needs one (a burst
    /// otherwise allocates and frees a segment per 255 jobs, and the heap's growth and
    /// trimming cost page faults).
    private let spareSegment = Atomic<UnsafeMutableRawPointer?>(nil)

    init() {
        let first = Self.allocateSegment()
        tailSegment = Atomic(first)
        headSegment = Atomic(first)
    }

    deinit {
        while pop() != nil {}
        headSegment.load(ordering: .relaxed).deallocate()
        spareSegment.load(ordering: .relaxed)?.deallocate()
    }

    /// Whether the queue holds no job (a racing push may make it non-empty right after; a
    /// job the consumer is taking may still count for a moment).
    @inline(__always)
    var isEmpty: Bool { tail.load(ordering: .acquiring) & Self.emptyMark != 0 }

    /// Appends a job whose reference the caller hands over; returns true when the queue
    /// was empty before (the caller must then see that a consumer is woken).
    ///
    /// A retry means another producer took the position. A producer waits only while
    /// another one moves the tail over a gap (it has its new segment in hand).
    @inline(__always)
    func push(retained job: Unmanaged<Job>) -> Bool {
        let node = job.toOpaque()
        var spare: UnsafeMutableRawPointer? = nil
        var backoff = LinkBackoff()
        while true {
            let word = tail.load(ordering: .acquiring)
            let position = word >> 1
            let slot = Int(position % Self.lap)
            if slot == Self.slotsPerSegment {
                // Another producer is installing the next segment.
                backoff.pause()
                continue
            }
            let takesLastSlot = slot == Self.slotsPerSegment - 1
            if takesLastSlot && spare == nil { spare = takeSpareSegment() }
            // Acquire on the tail above pairs with the installer's release below: a
            // position past a gap comes with the segment stored before it.
            let segment = tailSegment.load(ordering: .acquiring)
            // Clears `emptyMark`. Pairs with the consumer's compare-and-swap that sets it
            // (`markEmptyOrFindMore`): both act on this one word, so either the consumer
            // marked first and this producer learns the queue was empty, or this position
            // is taken first and the consumer's mark fails and it sees the job.
            guard tail.compareExchange(expected: word, desired: (position + 1) << 1,
                                       ordering: .acquiringAndReleasing).exchanged else { continue }
            if takesLastSlot, let next = spare.take() {
                tailSegment.store(next, ordering: .releasing)
                tail.add(2, ordering: .releasing)   // over the gap, to the next segment's first slot
                cnv_atomic_store_slot_release(Self.word(Self.slotsPerSegment, of: segment), UInt(bitPattern: next))
            }
            // Last access to `segment`: the consumer may free it once it read this slot.
            cnv_atomic_store_slot_release(Self.word(slot, of: segment), UInt(bitPattern: node))
            // A segment taken for a last slot that another producer won goes back.
            if let spare { giveBack(spare) }
            return word & Self.emptyMark != 0
        }
    }

    /// Removes and returns the oldest job. Consumer only.
    func pop() -> Job? {
        let position = head.load(ordering: .relaxed)
        if position >= knownTail.load(ordering: .relaxed) {
            let word = tail.load(ordering: .acquiring)
            if word >> 1 == position { return nil }
            knownTail.store(word >> 1, ordering: .relaxed)
        }
        // The position is taken; its producer may not have stored the job yet.
        let segment = headSegment.load(ordering: .relaxed)
        let slot = Int(position % Self.lap)
        var job = cnv_atomic_load_slot_acquire(Self.word(slot, of: segment))
        if job == 0 {
            var backoff = LinkBackoff()
            repeat {
                backoff.pause()
                job = cnv_atomic_load_slot_acquire(Self.word(slot, of: segment))
            } while job == 0
        }
        var next = position + 1
        if slot == Self.slotsPerSegment - 1 {
            // The segment's producer stored the next segment's address before this slot.
            let following = cnv_atomic_load_slot_acquire(Self.word(Self.slotsPerSegment, of: segment))
            headSegment.store(UnsafeMutableRawPointer(bitPattern: following)!, ordering: .relaxed)
            recycle(segment)
            next += 1   // over the gap
        }
        head.store(next, ordering: .relaxed)
        if next >= knownTail.load(ordering: .relaxed) { markEmptyOrFindMore(at: next) }
        return Job.takeRetained(UnsafeMutableRawPointer(bitPattern: job)!)
    }

    /// Consumer only: when fewer than `count` positions are taken and producers are still
    /// taking more, waits until `count` are (at most 32 looks four pauses apart: a few
    /// microseconds where a pause is long; a gap between segments counts as one).
    ///
    /// A worker that catches up with a submitting thread otherwise takes its jobs one or
    /// two at a time, and each take reads the tail word and the slot line the producer is
    /// writing: both lines then cross between the two cores for every job (in the C API's
    /// group workload the submitting thread's compare-and-swap and slot store stalled on
    /// them). The wait stops as soon as the tail stands still for two looks, so a lone job
    /// (a queue woken from another thread) costs only those looks.
    func awaitSomeJobs(_ count: UInt64) {
        let position = head.load(ordering: .relaxed)
        if knownTail.load(ordering: .relaxed) >= position + count { return }
        var seen = tail.load(ordering: .acquiring) >> 1
        if seen == position { return }
        var stillLooks = 0, looks = 0
        while seen < position + count && stillLooks < 2 && looks < 32 {
            for _ in 0..<4 { cnv_cpu_relax() }
            let now = tail.load(ordering: .acquiring) >> 1
            if now == seen {
                stillLooks += 1
            } else {
                stillLooks = 0
                seen = now
            }
            looks += 1
        }
        knownTail.store(seen, ordering: .relaxed)
    }

    /// After taking the last job the consumer knew of: sets `emptyMark` if no producer took
    /// a position since, else learns the new tail. See the pairing in `push`.
    private func markEmptyOrFindMore(at position: UInt64) {
        var word = tail.load(ordering: .acquiring)
        while word >> 1 == position {
            let (exchanged, current) = tail.compareExchange(expected: word, desired: word | Self.emptyMark,
                                                            ordering: .acquiringAndReleasing)
            if exchanged { return }
            word = current
        }
        knownTail.store(word >> 1, ordering: .relaxed)
    }

    /// The spare segment, or a new one; every slot empty. Acquire pairs with `recycle`'s
    /// release (the consumer's zeroing is seen before the producer's slot stores).
    private func takeSpareSegment() -> UnsafeMutableRawPointer {
        spareSegment.exchange(nil, ordering: .acquiring) ?? Self.allocateSegment()
    }

    /// Zeroes a segment the consumer has read to its end and keeps it as the spare.
    private func recycle(_ segment: UnsafeMutableRawPointer) {
        segment.initializeMemory(as: UInt.self, repeating: 0, count: Int(Self.lap))
        giveBack(segment)
    }

    /// Keeps an empty (zeroed) segment as the spare, or frees it if there is one already.
    private func giveBack(_ segment: UnsafeMutableRawPointer) {
        if let previous = spareSegment.exchange(segment, ordering: .releasing) { previous.deallocate() }
    }

    /// A new segment with every slot empty.
    private static func allocateSegment() -> UnsafeMutableRawPointer {
        let segment = UnsafeMutableRawPointer.allocate(byteCount: segmentBytes, alignment: 64)
        segment.initializeMemory(as: UInt.self, repeating: 0, count: Int(lap))
        return segment
    }

    /// The address of word `index` of `segment` (a slot, or the next segment's address).
    @inline(__always)
    private static func word(_ index: Int, of segment: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UInt> {
        segment.assumingMemoryBound(to: UInt.self) + index
    }
}
