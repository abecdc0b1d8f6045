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

/// An intrusive multi-producer, single-consumer FIFO of jobs.
///
/// A producer links a job with one atomic exchange of the tail (wait-free) and learns
/// whether the list was empty before: that producer, and only that one, is responsible for
/// waking the consumer. The consumer must be single at any moment (a queue's drain owner,
/// or whoever holds the pool's consumer flag).
@usableFromInline
struct JobList: ~Copyable, @unchecked Sendable {
    @usableFromInline let head = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Keeps `head` (written by the consumer on every pop) and `tail` (exchanged by every
    /// producer) on different cache lines, as libdispatch separates a queue's items head
    /// and tail. On one line, each pop and each push took the line from the other core
    /// (a serial `dispatch_async_f` burst spent most of the producer's time in its one
    /// exchange).
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline let tail = Atomic<UnsafeMutableRawPointer?>(nil)

    init() {}

    /// Appends a job; returns true when the list was empty before (the caller must wake the consumer).
    /// Takes `job` (consuming: a caller that passes its last use hands its reference to
    /// the list, and the retain here cancels against that reference's end, no atomic pair).
    @inline(__always)
    func push(_ job: consuming Job) -> Bool {
        // A caller that held `job` +0 copied it for this call: that retain is done before
        // the job is published (`cnv_publication_barrier`; `retainedForPublishing` says
        // why). Here, not at the store: between the move into `Unmanaged` and the end of
        // `job`'s lifetime, an opaque call kept a retain and a release the optimizer
        // otherwise cancels (two atomic operations more per push: callgrind,
        // group-fan-out).
        _ = cnv_publication_barrier(Unmanaged.passUnretained(job).toOpaque())
        return push(retained: Unmanaged.passRetained(consume job))
    }

    /// Appends a job whose reference the caller hands over; returns true when the list was
    /// empty before.
    @inline(__always)
    func push(retained job: Unmanaged<Job>) -> Bool {
        job._withUnsafeGuaranteedRef { $0.next.store(nil, ordering: .relaxed) }
        let node = job.toOpaque()
        // Sequentially consistent, as is `isEmpty`: see "Dekker pairing" at `wakeup`
        // (DispatchQueue, QueueDrain.swift). On x86-64 the same instructions.
        if let previous = tail.exchange(node, ordering: .sequentiallyConsistent) {
            Self.link(previous, to: node)
            return false
        }
        head.store(node, ordering: .releasing)
        return true
    }

    /// Whether the list has no job (a racing push may make it non-empty right after).
    @inline(__always)
    var isEmpty: Bool { tail.load(ordering: .sequentiallyConsistent) == nil }

    /// The first job, without removing it. Consumer only.
    func peekFirst() -> Job? {
        guard let first = loadHead() else { return nil }
        return Job.peek(first)
    }

    /// How long `pop` gives a producer in mid-burst to link the successor of the last job
    /// it sees, before it swings the tail back to empty.
    enum LinkWait {
        /// No wait: the caller has no reason to think a producer is streaming.
        case none
        /// Up to 16 pauses, looking after each (a few hundred nanoseconds). A drain that
        /// caught up with its producer otherwise competes for the tail on every job: the
        /// compare-and-swap here and the producer's exchange move the tail's line between
        /// the two cores each time (half of a `dispatch_async_f` burst's time went to
        /// those two instructions).
        case brief
        /// Up to 16 looks, 16 pauses apart (a few microseconds), for a drain that has run
        /// a run of jobs, when its worker has nothing else to do
        /// (`Worker.currentHasNothingElse`, looked at only when the wait begins; else
        /// `brief`). Between looks the producer writes its next jobs without the consumer
        /// reading the lines it is writing. Looking after every pause, the drain took each
        /// job as soon as it was linked, in step with the submitter, which then waited on
        /// every submission for the line of the job it linked to (1M `dispatch_async_f` to
        /// a serial queue, 14 alternating rounds: median 38.6 ns per job with `brief`
        /// here, 28.7 with this).
        case streamingIfIdle
    }

    /// Removes and returns the first job. Consumer only.
    ///
    /// With a `linkWait`, a first job with no successor yet is given a moment for a
    /// producer in mid-burst to link the next one (see `LinkWait`). Ask for it only while
    /// a producer is likely streaming (the caller has just taken other jobs): a wait that
    /// finds no successor costs the caller its length.
    func pop(linkWait: LinkWait = .none) -> Job? {
        guard let first = loadHead() else { return nil }
        var successor = Self.next(of: first)
        if successor == nil && linkWait != .none {
            let pausesPerLook = linkWait == .streamingIfIdle && Worker.currentHasNothingElse ? 16 : 1
            for _ in 0..<16 {
                for _ in 0..<pausesPerLook { cnv_cpu_relax() }
                successor = Self.next(of: first)
                if successor != nil { break }
            }
        }
        if let next = successor {
            head.store(next, ordering: .relaxed)
            return Job.takeRetained(first)
        }
        // `first` may be the last job: try to swing the tail back to empty.
        head.store(nil, ordering: .relaxed)
        if tail.compareExchange(expected: first, desired: nil, ordering: .acquiringAndReleasing).exchanged {
            return Job.takeRetained(first)
        }
        // A producer exchanged the tail after `first` and is about to link it.
        var next = Self.next(of: first)
        var backoff = LinkBackoff()
        while next == nil {
            backoff.pause()
            next = Self.next(of: first)
        }
        head.store(next, ordering: .relaxed)
        return Job.takeRetained(first)
    }

    // The list owns a +1 on every node, so its links are read and written through the
    // pointer, with no retain/release pair on the job around the access.

    /// The node after `node` (acquire: pairs with the release in `link`).
    @inline(__always)
    static func next(of node: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Unmanaged<Job>.fromOpaque(node)._withUnsafeGuaranteedRef { $0.next.load(ordering: .acquiring) }
    }

    /// Links `node` after `previous`, publishing `node`'s contents to the consumer.
    @inline(__always)
    static func link(_ previous: UnsafeMutableRawPointer, to node: UnsafeMutableRawPointer) {
        Unmanaged<Job>.fromOpaque(previous)._withUnsafeGuaranteedRef { $0.next.store(node, ordering: .releasing) }
    }

    /// The head, waiting out the instant between a producer's tail exchange and its head store.
    @inline(__always)
    func loadHead() -> UnsafeMutableRawPointer? {
        if let first = head.load(ordering: .acquiring) { return first }
        if tail.load(ordering: .acquiring) == nil { return nil }
        var backoff = LinkBackoff()
        while true {
            if let first = head.load(ordering: .acquiring) { return first }
            backoff.pause()
        }
    }

    /// Releases every job still on the list (when its owner is freed).
    func removeAll() {
        while pop() != nil {}
    }
}

/// The wait of a `JobList` consumer for a producer that exchanged the tail but has not
/// linked its node yet (two instructions later, unless the producer was preempted).
///
/// Invariant: the wait is bounded in CPU, not in time. It spins a little (the usual case
/// is a few nanoseconds), then yields the CPU on every try, so a preempted producer gets
/// the CPU back (on a machine with one CPU it could not otherwise run) instead of the
/// consumer burning its whole time slice.
struct LinkBackoff {
    private var spins = 0

    @inline(__always)
    mutating func pause() {
        if spins < 64 {
            spins += 1
            cnv_cpu_relax()
        } else {
            cnv_thread_yield()
        }
    }
}
