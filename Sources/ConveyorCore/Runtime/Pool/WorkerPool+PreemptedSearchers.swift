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

/// Searchers the kernel preempted (issue 24). A searching worker counts as searching until
/// it finds work or parks, and a producer that sees a searcher wakes nobody: the searcher
/// will find the job. On a busy machine the kernel may have taken that searcher's CPU for
/// milliseconds, and the job waits for its next time slice (loaded timer lateness p50
/// 180 µs against libdispatch's 26). So searchers show that they run: every search round
/// stamps the time in the searcher's own `Worker.searchStamp`, and a producer outside the
/// pool (the event thread firing a timer or a source, a plain thread) that finds no
/// searcher's stamp fresher than `preemptedSearcherNanoseconds` wakes a worker past them.
///
/// The stamps are per worker: with one stamp for the pool, a searcher that had just
/// stamped it and then parked vouched for another that the kernel had preempted, and the
/// next post, seeing a fresh stamp, woke nobody; each later post to the same serial queue
/// found the queue already scheduled, and its timers waited 10 ms for the preempted
/// searcher (traced on a loaded machine: 200 timers in a row).
///
/// Only producers outside the pool look: a worker that posts runs itself and looks for
/// work after its job, and waking past searchers for every post between workers cost the
/// loaded throughput workloads 4 to 16 % (more runnable threads than CPUs, each woken one
/// retiring after a job). The stamp costs a clock read per search round (a few
/// microseconds each) and, for outside producers that see a searcher, a pass over the
/// workers that ends at the first fresh stamp.
///
/// Pairing: none is needed for correctness. The stamps only decide whether a producer
/// that saw a searcher also wakes a worker; a stale or early read costs a wake-up, or
/// leaves the job to the searcher as before.
extension WorkerPool {
    /// How long searchers may go unseen before a producer takes them to be preempted. A
    /// search round takes a few microseconds and a woken worker starts in tens of them on
    /// an idle machine; the kernel takes a CPU away for milliseconds.
    static let preemptedSearcherNanoseconds: UInt64 = 50_000

    /// Counts `worker` as one more searcher (the caller itself, or a worker it wakes or
    /// starts) and stamps its search: a worker counted by its waker has not run yet, and
    /// gets the same grace.
    ///
    /// Ordering: the stamp is stored before the seq_cst increment (release), and a
    /// producer loads it after its seq_cst load of `searching` (acquire), so a producer
    /// that sees this searcher also sees its stamp. A stale read only costs a wake-up.
    @inline(__always)
    func countSearcher(_ worker: Worker) {
        worker.searchStamp.store(Clock.monotonicNanoseconds(), ordering: .relaxed)
        searching.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Stops counting `worker` as a searcher: its stamp goes first, so that a worker that
    /// no longer searches never vouches for one that does and was preempted. Returns the
    /// searchers left.
    @inline(__always) @discardableResult
    func uncountSearcher(_ worker: Worker) -> Int {
        worker.isSearching = false
        worker.searchStamp.store(0, ordering: .relaxed)
        return searching.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
    }

    /// Shows producers that `worker`, a searcher, runs: once per search round; returns
    /// the time read. The store is skipped while the stamp is fresher than
    /// `stampRefreshNanoseconds`, so that producers reading it rarely find the line moved.
    @inline(__always) @discardableResult
    func stampSearch(_ worker: Worker) -> UInt64 {
        let now = Clock.monotonicNanoseconds()
        if worker.searchStamp.load(ordering: .relaxed) &+ Self.stampRefreshNanoseconds < now {
            worker.searchStamp.store(now, ordering: .relaxed)
        }
        return now
    }

    /// A gap this long in a spin (between two search rounds, within one, or across a
    /// drain's linger, each of which takes microseconds) means the kernel took the
    /// thread's CPU meanwhile: the thread stops spinning for a while
    /// (`cnv_spin_note_descheduled`).
    static let descheduledGapNanoseconds: UInt64 = 200_000

    /// Notes a spin that went from `since` to `now` as descheduled if the gap is longer
    /// than `descheduledGapNanoseconds`; returns whether it was.
    @inline(__always)
    static func noteIfDescheduled(since: UInt64, now: UInt64) -> Bool {
        guard now &- since > descheduledGapNanoseconds else { return false }
        cnv_spin_note_descheduled()
        return true
    }

    /// How fresh a stamp is left alone (`stampSearch`): well under
    /// `preemptedSearcherNanoseconds`.
    static let stampRefreshNanoseconds: UInt64 = 8_000

    /// Whether no searcher has shown for `preemptedSearcherNanoseconds` that it runs (a
    /// pass over the workers that ends at the first fresh stamp).
    @inline(never)
    func searchersLookPreempted() -> Bool {
        let now = Clock.monotonicNanoseconds()
        let count = slotCount.load(ordering: .acquiring)
        for index in 0..<count {
            let stamp = workerRef(at: index)._withUnsafeGuaranteedRef { $0.searchStamp.load(ordering: .relaxed) }
            if stamp != 0 && stamp &+ Self.preemptedSearcherNanoseconds >= now { return false }
        }
        return true
    }

    /// Whether to wake or start a worker although workers count as searching, because
    /// none of them has run for a while (`notifyWorkAvailable`). Called with the lock held.
    /// Bounded: only while the workers not searching are fewer than wanted, and never
    /// beyond twice the wanted number running; the surplus retires after its next job
    /// (`hasSurplusWorkers`). The woken worker stamps the search (`countSearcher`), so the
    /// posts right after this one see a fresh searcher and wake nobody else: that is why
    /// the stamp is looked at again here, under the lock, after the producer's first look.
    func shouldWakePastPreemptedSearchers() -> Bool {
        let wanted = target
        let runningNow = running.load(ordering: .relaxed)
        return searchersLookPreempted() && runningNow - searching.load(ordering: .relaxed) < wanted
            && runningNow < 2 * wanted
    }
}
