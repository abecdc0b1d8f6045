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

// Searching: a worker that found no work in its own queues spins a few rounds over the
// other workers and the shared queues before it parks (`findJob`, `park`).
extension WorkerPool {
    /// What `findJob` does when no queue it looked at held work: a short search of the
    /// other workers' rings (and, after a few rounds, their LIFO slots), the shared queues
    /// and due timers. Nil means park.
    func search(for worker: Worker) -> Job? {
        if !worker.isSearching {
            // At most about half of the running workers search at once.
            let searchers = searching.load(ordering: .relaxed)
            if searchers > 0 && 2 * searchers >= running.load(ordering: .relaxed) { return nil }
            countSearcher(worker)
            worker.isSearching = true
        }
        // While this worker watches a due timer (`serveTimers`), it spins past its rounds
        // until it fires it; leaving in any other way gives the watch back.
        var watchUntil: UInt64 = 0
        var timersTried = false
        defer { if watchUntil != 0 { EventLoop.shared.endTimerWatch() } }
        var round = 0
        // On a busy machine (this thread keeps being preempted: `cnv_spin_advised`) a
        // long search takes CPU that running work needs, and a post from outside the pool
        // wakes another worker past a preempted searcher anyway: search 16 rounds (about
        // 13 µs), then park, and watch no timer (issue 24). 16, not 4: beside two threads
        // burning CPU, 4 rounds parked the workers a reader-writer queue's next reads
        // needed (5,979-7,096 ns per operation; 16 rounds: 5,084-5,589, and less CPU per
        // operation; libdispatch 3,039-6,462), and timers were no earlier (p50 41-48 µs
        // late; 16 rounds: 40-51). A thread that spins at every chance runs up its share
        // of the CPU, and the kernel then takes its CPU for whole time slices (traced: 4 ms
        // on, 4 ms off, beside two threads burning CPU), while the timer it watches, the
        // queue it drains or the job it counts as searching for waits. A search that finds
        // itself descheduled between two rounds ends and stops this thread's spinning for
        // a while (`cnv_spin_note_descheduled`).
        // Every search takes a busy owner's LIFO slot from its fifth round, and in the last
        // round of one cut short: the LIFO watcher's wake-up relies on that (issue 11,
        // finding 3), and parking checks no slots.
        let spinAdvised = cnv_spin_advised()
        let rounds = spinAdvised ? 48 : 16
        let lifoRound = 4
        var lastRoundEnd: UInt64 = 0
        var lastRound = false
        while round < rounds || watchUntil != 0 {
            let now = stampSearch(worker)
            // Descheduled between two rounds: one last round, in which due timers fire
            // (a watch left is ended on the way out), then park.
            if lastRoundEnd != 0 && Self.noteIfDescheduled(since: lastRoundEnd, now: now) { lastRound = true }
            if let job = stealOnce(for: worker, includingLIFO: lastRound || round >= lifoRound) { return job }
            if round > 0 {
                for _ in 0..<32 { cnv_cpu_relax() }
            }
            if let job = popInjection(for: worker) { return job }
            if !timersTried, let job = serveTimers(for: worker, roundStart: now, mayWatch: spinAdvised && !lastRound,
                                                   watchUntil: &watchUntil, tried: &timersTried) {
                return job
            }
            if lastRound { break }
            round += 1
            // Read at the round's end, so that callbacks fired in it do not count as a gap.
            lastRoundEnd = Clock.monotonicNanoseconds()
        }
        return nil
    }

    /// One pass over the other workers. With `includingLIFO` (after a few microseconds of
    /// searching) the LIFO slot of a worker that is inside a job may be taken too: its
    /// owner is busy, and the job must not wait for it while this CPU idles.
    func stealOnce(for worker: Worker, includingLIFO: Bool) -> Job? {
        let count = slotCount.load(ordering: .acquiring)
        if count < 2 { return nil }
        let start = Int(worker.nextRandom() % UInt32(count))
        for offset in 0..<count {
            let taken = workerRef(at: (start + offset) % count)._withUnsafeGuaranteedRef { victim -> Job? in
                if victim === worker { return nil }
                if !victim.local.isEmpty, let job = victim.local.steal(into: worker.local) { return job }
                if includingLIFO, victim.inJob.load(ordering: .relaxed),
                   victim.lifoSlot.load(ordering: .relaxed) != nil,
                   let raw = victim.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing) {
                    return Job.takeRetained(raw)
                }
                return nil
            }
            if let taken { return taken }
        }
        return nil
    }

    /// `worker` found work after searching: if it was the last searcher, wake another so
    /// the rest of the work is not left waiting.
    ///
    /// Only when work is left to find, LIFO slots included (a slot filled while its owner
    /// runs a long job relies on this wake-up when the filler saw a searcher): a searcher
    /// that took the one job there was (say, a timer it fired itself) wakes nobody.
    /// Dekker pairing with `notifyWorkAvailable` and the LIFO branch of `submit`: a
    /// producer publishes its job, fences and then reads `searching`; this decrements
    /// `searching`, fences and then looks for published jobs. Either the producer sees no
    /// searcher and wakes a worker (or pokes the watchdog) itself, or this look sees its
    /// job and wakes one. The look is one pass over the workers, as a parking worker's.
    func stopSearching(_ worker: Worker) {
        if uncountSearcher(worker) == 0 {
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if hasVisibleWork(includingLIFO: true) { notifyWorkAvailable() }
        }
    }
}
