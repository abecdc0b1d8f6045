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

// A pool that holds many threads (most of them blocked) takes what running jobs posted
// before new work from the bands' shared queues.
extension WorkerPool {
    /// Whether more than half the threads the pool may have are awake (running or blocked,
    /// not parked). It gets there only when hundreds of jobs block at once (it keeps one
    /// runnable worker per CPU), and at the cap a job that all the blocked ones wait for
    /// can no longer get a thread. Parked threads do not count: after such a burst they
    /// stay alive (`idleTimeoutNanoseconds`) with nothing to wait for.
    @inline(__always)
    var isCrowded: Bool {
        liveThreads.load(ordering: .relaxed) - parkedThreads.load(ordering: .relaxed) > maxThreads / 2
    }

    /// While the pool is crowded: a job from another worker's ring or LIFO slot (of a
    /// worker inside a job), taken ahead of the bands' shared queues within
    /// `popAheadOfBands`' limits.
    ///
    /// Invariant: posted work never waits for a thread behind work posted after it while
    /// threads run out. Normally a worker takes from the shared queues before it steals (as
    /// Go's scheduler does), and looks at a busy worker's LIFO slot only after searching a
    /// few rounds. A job that posts something (to its ring, or a queue's drain to its slot)
    /// and then keeps its CPU, or is preempted before it waits, hides that post from a pool
    /// whose shared queue is full of jobs that block on it: every replacement thread took
    /// one of those, up to the cap, and the post never ran (CI: a thousand blocks posting
    /// to one serial queue and waiting; libdispatch, first in first out, runs such a post
    /// first). A job that blocks in a Conveyor wait hands its posts off itself
    /// (`handOffLocalWork`); this covers the rest, at the cost of the steal's order, and of
    /// band order, while crowded.
    ///
    /// Only into an empty ring (`LocalRunQueue.steal` copies past the thief's tail, and
    /// could overwrite its older jobs): `findJob`'s periodic look at the shared queues
    /// comes here with the ring still holding work, and then leaves the steal to later.
    func stealAheadOfBands(for worker: Worker) -> Job? {
        guard worker.local.isEmpty, let job = stealOnce(for: worker, includingLIFO: true) else { return nil }
        // A ring steal moves more into this worker's ring, where others may take it.
        if !worker.isSearching && !worker.local.isEmpty { notifyWorkAvailable() }
        return job
    }
}
