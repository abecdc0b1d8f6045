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

/// Searchers the kernel preempted (issue 24). A searching worker counts as searching until
/// it finds work or parks, and a producer that sees a searcher wakes nobody: the searcher
/// will find the job. On a busy machine the kernel may have taken that searcher's CPU for
/// milliseconds, and the job waits for its next time slice (loaded timer lateness p50
/// 180 µs against libdispatch's 26). So searchers show that they run: every search round
/// stamps the time (`searchStamp`), and a producer outside the pool (the event thread
/// firing a timer or a source, a plain thread) that finds the stamp older than
/// `preemptedSearcherNanoseconds` wakes a worker past them.
///
/// Only producers outside the pool look: a worker that posts runs itself and looks for
/// work after its job, and waking past searchers for every post between workers cost the
/// loaded throughput workloads 4 to 16 % (more runnable threads than CPUs, each woken one
/// retiring after a job). The stamp costs a clock read per search round (a few
/// microseconds each) and, for outside producers that see a searcher, one per post.
///
/// Pairing: none is needed for correctness. The stamp only decides whether a producer
/// that saw a searcher also wakes a worker; a stale or early read costs a wake-up, or
/// leaves the job to the searcher as before.
extension WorkerPool {
    /// How long searchers may go unseen before a producer takes them to be preempted. A
    /// search round takes a few microseconds and a woken worker starts in tens of them on
    /// an idle machine; the kernel takes a CPU away for milliseconds.
    static let preemptedSearcherNanoseconds: UInt64 = 50_000

    /// Counts one more searcher (the caller, or a worker it wakes or starts) and stamps the
    /// search: a worker counted by its waker has not run yet, and gets the same grace.
    ///
    /// Ordering: the stamp is stored before the seq_cst increment (release), and a
    /// producer loads it after its seq_cst load of `searching` (acquire), so a producer
    /// that sees this searcher also sees its stamp. A stale read only costs a wake-up.
    @inline(__always)
    func countSearcher() {
        searchStamp.store(Clock.monotonicNanoseconds(), ordering: .relaxed)
        searching.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Shows producers that a searcher runs: once per search round. The store is skipped
    /// while the stamp is fresher than `stampRefreshNanoseconds`, so that many searchers
    /// (a many-core machine) share the line read-only and store it about once per that
    /// period between them, not once per round each.
    @inline(__always)
    func stampSearch() {
        let now = Clock.monotonicNanoseconds()
        if searchStamp.load(ordering: .relaxed) &+ Self.stampRefreshNanoseconds < now {
            searchStamp.store(now, ordering: .relaxed)
        }
    }

    /// How fresh a stamp is left alone (`stampSearch`): well under
    /// `preemptedSearcherNanoseconds`.
    static let stampRefreshNanoseconds: UInt64 = 8_000

    /// Whether every searcher has gone unseen for `preemptedSearcherNanoseconds`.
    @inline(never)
    func searchersLookPreempted() -> Bool {
        let stamp = searchStamp.load(ordering: .relaxed)
        return stamp &+ Self.preemptedSearcherNanoseconds < Clock.monotonicNanoseconds()
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
