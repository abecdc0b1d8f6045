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

// Reserve threads: past the thread cap, a thread for what blocked workers handed off (and
// for band relief, `WorkerPool+BandRelief.swift`), while no pool thread runs.
//
// At the cap every pool thread may hold a job that waits for something posted after it. A
// worker that blocks hands its posts off ahead of everything else (`handOffLocalWork`),
// but a hand-off still needs a thread to take it: if the last runnable workers all took
// new jobs that block (two freed at once, each taking a waiter before either's post was
// handed off), the hand-off queue holds the very jobs every thread waits for, and no
// thread may start. (Seen once in about thirty test runs: a thousand blocks that post to
// one serial queue and wait; libdispatch hangs there at its 255 threads at once.)
//
// Invariant: handed-off work never waits for a thread while every pool thread waits,
// until `reserveThreadCeiling - 1` reserve threads wait in jobs pushed behind the posts
// (then only posts get the last one). The guess of which handed-off jobs are posts can
// fail: when every thread still waits with such work queued and no job started for two
// watchdog ticks, the stall breaker adds a thread, up to 64 more
// (`WorkerPool+StallBreaker.swift`). When a start is refused at the cap, the hand-off
// queue holds work and no worker runs (or only ones the watchdog found blocked), a
// reserve thread starts, up to `reserveThreadLimit` running at once. Reserve threads
// blocked in a Conveyor wait do not count, up to `reserveThreadCeiling` alive: a post can
// itself be a waiter (a job posted 20,000 blocks that post and wait, and blocked), and
// with the last reserve thread in one, its own post had no thread (at a reserve limit of
// 2, half the runs of that test). Of those alive, all but one at most run (or wait in)
// jobs that were not a blocked job's posts, so one is left for the post they wait for
// (`reserveJob`). A reserve thread runs handed-off jobs and what they post (its LIFO
// slot and ring), and of the bands' shared queues only those of bands that fewer than the
// cap's number of threads are inside (`WorkerPool+BandRelief.swift`: a band's work that
// fills the cap is more waiters, what the cap is for, and the test of an exhausted cap
// still sees new blocks wait), and exits when none is left that it may take or other
// workers run again.
//
// Nor does work that a running job posted wait, at the cap, for that job to return: when
// the threads that are not waiting stay inside long jobs (a job posts a queue's drain,
// then computes while every other thread waits for that drain), the watchdog's tick hands
// what such a job's worker holds (LIFO slot and ring) off and starts a reserve thread for
// it (`startReserveForStalledWork`). On libdispatch the post goes to the tail of a shared
// first-in-first-out queue, ahead of work queued after it; here it sits in the poster's
// LIFO slot or ring, where only a worker that is free to search finds it, and at the cap
// none may be.
extension WorkerPool {
    /// With the lock held, after a regular start found the cap reached: a slot for a
    /// reserve thread, counted as running (not searching), if blocked workers' posts wait
    /// in the hand-off queue (or, with a turn free for other jobs, jobs pushed behind or a
    /// band's work that needs relief: `bandNeedingRelief`), every worker counted as
    /// running is one the watchdog found blocked (`credit`), and the reserve allows one
    /// more.
    ///
    /// Dekker pairing with `willBlock`: a worker pushes its posts, then takes itself out
    /// of `running` (seq_cst) and looks for visible work, which brings it here; of the last
    /// two workers to block, the second sees the first's hand-off and `running` at 0 (a
    /// reserve thread counts itself in `blockedReserveThreads` before, so that its own look
    /// sees the room it leaves). A reserve thread that exits looks at the hand-off queue
    /// after leaving `running` (`reserveDidExit`). The watchdog's tick comes here too
    /// while work is visible.
    ///
    /// `forStalledWork`: the watchdog's tick found workers stuck inside one job
    /// (`startReserveForStalledWork`); then whoever runs.
    func claimReserveWorkerIfStuck(forStalledWork: Bool = false) -> Worker? {
        let reserve = reserveThreads.load(ordering: .relaxed)
        guard forStalledWork || running.load(ordering: .sequentiallyConsistent) <= credit.load(ordering: .relaxed),
              reserve - blockedReserveThreads.load(ordering: .relaxed) < reserveThreadLimit,
              reserve < reserveThreadCeiling,
              // A thread that could take nothing would exit at once and ask again. A turn
              // given back later is taken by the thread that gave it (it looks for its next
              // job) or, if that one left, by the watchdog's tick, which claims again.
              handedOff.holdsPosts || (reserveThreadsBehind.load(ordering: .relaxed) < behindTurns
                                       && (!handedOff.isEmpty || bandNeedingRelief() != nil)),
              let worker = claimThreadlessSlot() else { return nil }
        worker.hasThread = true
        worker.isReserve = true
        reserveThreads.wrappingAdd(1, ordering: .relaxed)
        running.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return worker
    }

    /// The next job for reserve `worker`: its LIFO slot, its ring, then the hand-off
    /// queue (the leaves it holds given first: `Worker.leaveLater` covers its own ring's
    /// jobs only), blocked workers' posts before the work of a band that needs relief
    /// (`popReliefJob`) and what was pushed behind them. Nil when it should exit.
    ///
    /// Posts first: a reserve thread that takes a job that waits is lost to the others
    /// until that job's post runs, and there are few of them. Jobs pushed behind (a
    /// retiring worker's ring, the ring of a stuck worker that still posts:
    /// `handOffRing`) are often such waiters: taken in turn with the posts, they had all
    /// eight reserve threads waiting in blocks that a job posting 20,000 of them kept in
    /// its ring, with their posts queued behind (cap 4, under ThreadSanitizer).
    ///
    /// Never a steal: the rings of running workers hold waiters as often as posts (a
    /// version that stole there had all eight reserve threads blocked in waiters, 20,000
    /// blocks posting to a serial queue at a cap of 4, one run in two).
    ///
    /// A job pushed behind only while another reserve thread could still start for posts
    /// (`reserveThreadsBehind` below `behindTurns`; the worker holds that turn until the
    /// job returns, `isBehindTurnHeld`): posts first is not enough, since a reserve thread
    /// that finds no post takes a job behind, and the post every waiter needs can come
    /// after all of them did. So it was: the eight reserve threads in
    /// waiters of a serial queue pushed behind, that queue's drain handed off after them
    /// with no thread left to take it (cap 4, about one full-suite run in five, busy).
    /// Not `reserveThreadLimit - 1` turns: the job every waiter needs may itself be
    /// behind (a drain in the older part of a blocked worker's ring), and with the turns
    /// all held by blocked waiters it had no thread.
    func reserveJob(for worker: Worker) -> Job? {
        if let job = worker.takeLIFOJob(pool: self) { return job }
        if let job = worker.local.pop() { return job }
        worker.releaseHeldLeaves()
        // The leave may have emptied the group: its notify is on this ring now.
        if let job = worker.local.pop() { return job }
        let now = Clock.monotonicNanoseconds()
        if let job = handedOff.pop(at: now, agingAfter: Self.agingNanoseconds, share: Self.agingShare, postsOnly: true) {
            return job
        }
        guard takeBehindTurn() else { return nil }
        // Relief before the jobs pushed behind (`WorkerPool+BandRelief.swift`): those are
        // often more waiters, and a band few threads are inside may hold what they wait
        // for. A post pushed since the look above may come back instead: it keeps the turn
        // too.
        if let job = popReliefJob(for: worker)
            ?? handedOff.pop(at: now, agingAfter: Self.agingNanoseconds, share: Self.agingShare) {
            worker.isBehindTurnHeld = true
            return job
        }
        reserveThreadsBehind.wrappingSubtract(1, ordering: .relaxed)
        return nil
    }

    /// One of the `behindTurns` turns to run a job pushed behind, if one is free. The count
    /// alone decides (compare-and-swap), so that no two reserve threads take the last one.
    private func takeBehindTurn() -> Bool {
        var taken = reserveThreadsBehind.load(ordering: .relaxed)
        while taken < behindTurns {
            let (exchanged, original) = reserveThreadsBehind.compareExchange(
                expected: taken, desired: taken + 1, ordering: .relaxed)
            if exchanged { return true }
            taken = original
        }
        return false
    }

    /// The watchdog's tick, at the cap, handed off the LIFO slot or ring of a worker still
    /// inside the job of the previous tick, or found handed-off work or a band's work that
    /// needs relief while every running worker is such a worker (`watchTick`): no regular
    /// thread may start for it, and those workers may not return for long. Starts a reserve
    /// thread for it, if the reserve allows one more; returns whether it started one.
    @discardableResult
    func startReserveForStalledWork() -> Bool {
        lock.lock()
        let reserve = liveThreads.load(ordering: .relaxed) >= maxThreads ? claimReserveWorkerIfStuck(forStalledWork: true) : nil
        lock.unlock()
        guard let reserve else { return false }
        startThread(for: reserve)
        return true
    }

    /// Reserve `worker` leaves the pool: what it still holds goes to the hand-off queue,
    /// then it stops counting. Called on its own thread, as its last act.
    func reserveDidExit(_ worker: Worker) {
        worker.releaseHeldLeaves()
        if handOffLocalWork(of: worker, waitingOnPosts: false) { notifyWorkAvailable() }
        // Read before the slot is given up: a thread started from this one would inherit
        // the nice value it raised for background work (`wakeOrStartWorker` asks the
        // watchdog for such a thread, but knows the caller only while it is a worker).
        let raisedNice = worker.holdsRaisedNice
        leavePool(worker)
        // Dekker pairing with a worker that handed work off and then blocked while this
        // thread still counted as running (so its look did not start a reserve thread):
        // this leaves `running` (seq_cst, above), fences, then looks.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if !handedOff.isEmpty || bandNeedingRelief() != nil {
            if raisedNice { watchdog.requestWorker(pool: self) } else { notifyWorkAvailable() }
        }
    }
}

extension Worker {
    /// Gives back the turn to run a job pushed behind that this reserve thread holds, if
    /// any (`WorkerPool.reserveJob`). The caller looks for its next job right after, or
    /// has given its job back (`exitPolite`, whose thread started for it may take it).
    func releaseBehindTurn(pool: WorkerPool) {
        guard isBehindTurnHeld else { return }
        isBehindTurnHeld = false
        pool.reserveThreadsBehind.wrappingSubtract(1, ordering: .relaxed)
    }

    /// A reserve thread's life (`WorkerPool+Reserve.swift`): handed-off jobs, band relief
    /// and what they post, until none is left or other workers run again.
    func runAsReserve(pool: WorkerPool) {
        startOnThisThread(name: "conveyor.reserve")
        isSearching = false
        while let job = pool.reserveJob(for: self) {
            // False: `exitPolite` gave the job back and took this thread out of the pool.
            guard runFound(job, pool: pool) else { return }
            releaseBehindTurn(pool: pool)
            if pool.hasSurplusWorkers { break }
        }
        pool.reserveDidExit(self)
    }
}
