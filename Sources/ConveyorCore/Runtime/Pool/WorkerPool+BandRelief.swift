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

// Band relief: at the thread cap, a reserve thread may also take the shared queue's work of
// a band that fewer than the cap's number of threads are inside.
//
// libdispatch on Linux gives each global queue a thread pool of its own, of up to 255
// threads: with 255 threads waiting inside default work, a background block still gets a
// thread. Conveyor has one pool for every band and one cap; past it only reserve threads
// start, and they took only handed-off work (`WorkerPool+Reserve.swift`). A post to another
// band's shared queue, made by a job that then waited for it, so had no thread once every
// pool thread waited: 12 default blocks that posted background work and waited hung at a
// cap of 8 every time (the composition tester's `postAndWait`, program 771013229), and
// 20,000 utility blocks posting user-initiated work at a cap of 4 stalled in most runs.
//
// Invariant: at the cap, while every pool thread waits, work on a band's shared queue gets
// a reserve thread (within the reserve's limits) whenever fewer than `maxThreads` threads
// are inside jobs of that band, libdispatch's limit per global queue. A band whose jobs
// fill the cap still waits, as an exhausted cap's work waits on libdispatch (FaultTests),
// so a crowd of one band's blocks that wait takes no reserve thread ahead of the posts they
// wait for. (Counting instead the shared-queue posts of blocked jobs, and letting reserve
// threads take those bands' queues, let them take a crowd's waiters queued ahead of the
// posts: the tester's busy poster hung at a cap of 4, program 179440855.)
//
// Such a job holds one of the turns for jobs that are not a blocked job's posts
// (`behindTurns`), so that one reserve thread is always left for the hand-off queue's
// posts; it comes before the jobs pushed behind, which are often more waiters of the bands
// that fill the cap (`reserveJob`). The watchdog's tick claims a reserve thread while such
// work waits (`watchTick` wakes or starts a worker while work is visible, and starts a
// reserve thread while the only workers running are stuck inside one job), so posts made
// below the cap, before the last threads started, are found too.
//
// Bounded by the reserve: relief jobs that wait keep their turns, and once every turn is
// held by one, what they posted to a third band waits too (at a reserve limit of 2, seven
// such jobs; at the default limits, 31 or more): libdispatch, with 255 threads per global
// queue, would run it. And a steady stream of a relief band's work delays the jobs pushed
// behind, which a reserve thread takes only when no band needs relief. The count of
// threads inside a band is a sample (`publishedBand` is stored just after `inJob` at a
// job's start), good for a decision the next look corrects.
extension WorkerPool {
    /// The most important band whose shared queue holds work while fewer than
    /// `maxThreads` of the pool's threads (reserve threads included) are inside jobs of
    /// that band, as a raw value; nil if none. A racy look: a reserve thread that finds
    /// nothing when it takes exits, and the watchdog's next tick looks again.
    func bandNeedingRelief() -> Int? {
        var nonEmpty: UInt8 = 0
        for index in injection.indices where !injectionQueue(index, { $0.isEmpty }) { nonEmpty |= 1 << index }
        guard nonEmpty != 0 else { return nil }
        let bands = injection.count
        // On the stack: the caller may hold the pool's lock.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: bands) { inside in
            inside.initialize(repeating: 0)
            let count = slotCount.load(ordering: .acquiring)
            for index in 0..<count {
                workerRef(at: index)._withUnsafeGuaranteedRef { worker in
                    guard worker.inJob.load(ordering: .relaxed) else { return }
                    let band = Int(worker.publishedBand.load(ordering: .relaxed))
                    if band < bands { inside[band] += 1 }
                }
            }
            let cap = maxThreads
            return (0..<bands).first { nonEmpty & (1 << $0) != 0 && inside[$0] < cap }
        }
    }

    /// A job for reserve `worker` from the shared queue of a band that needs relief
    /// (`bandNeedingRelief`), taken alone; nil if none. The caller holds a turn for jobs
    /// that are not posts (`reserveJob`).
    func popReliefJob(for worker: Worker) -> Job? {
        guard let band = bandNeedingRelief() else { return nil }
        return popAlone(fromBand: band, for: worker)
    }
}
