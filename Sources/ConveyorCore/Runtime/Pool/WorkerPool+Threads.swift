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

// Pool threads: waking or starting one, the slots they run in, and their ends.
extension WorkerPool {
    /// Wakes a parked worker, or starts one, unless someone already searches or every
    /// wanted worker is already running. `pastPreemptedSearchers`: searchers that have
    /// not run for a while do not count (`shouldWakePastPreemptedSearchers`).
    /// `urgentBand`: nobody runs that band while a less important one runs
    /// (`WorkerPool+Urgency.swift`): a worker is woken or started whether or not others
    /// search and whatever the target (not past the thread cap; through the watchdog when
    /// this thread holds a raised nice value), and takes a job of that band or a more
    /// important one first (`takeUrgentJob`).
    func wakeOrStartWorker(pastPreemptedSearchers: Bool = false, urgentBand: QoSBand? = nil) {
        lock.lock()
        let wanted = urgentBand != nil
            || (pastPreemptedSearchers
                ? shouldWakePastPreemptedSearchers()
                : searching.load(ordering: .relaxed) == 0 && running.load(ordering: .relaxed) < target)
        if !wanted {
            lock.unlock()
            return
        }
        if let index = idle.popLast() {
            let worker = worker(at: index)
            worker.isParked = false
            if let urgentBand { worker.urgentBand.store(urgentBand.rawValue, ordering: .relaxed) }
            running.wrappingAdd(1, ordering: .sequentiallyConsistent)
            countSearcher(worker)
            lock.unlock()
            worker.parker.unpark()
            return
        }
        // A thread created here inherits this thread's nice value. One that raised its nice
        // (and may be unable to lower it) asks the watchdog, at nice 0, to start it instead.
        if let current = Worker.current, current.holdsRaisedNice {
            lock.unlock()
            watchdog.requestWorker(pool: self, urgentBand: urgentBand)
            return
        }
        guard liveThreads.load(ordering: .relaxed) < maxThreads, let worker = claimThreadlessSlot() else {
            // At the cap: only work that blocked workers handed off may have a thread more.
            // Without one, the watchdog must be looking: its tick hands off what a worker
            // stuck inside one job holds and may start a reserve thread for it. Asleep
            // (no work was visible), nothing else woke it: a job that filled its LIFO slot
            // at the cap and kept computing, every other thread waiting for that drain,
            // stalled for good (1 run in 6 of the test for that case). Dekker pairing as
            // for every poke: the caller published the work and fenced
            // (`notifyWorkAvailable`); the watchdog stores `sleeping`, fences, then looks.
            let reserve = claimReserveWorkerIfStuck()
            lock.unlock()
            if let reserve { startThread(for: reserve) } else { watchdog.poke() }
            return
        }
        worker.hasThread = true
        if let urgentBand { worker.urgentBand.store(urgentBand.rawValue, ordering: .relaxed) }
        liveThreads.wrappingAdd(1, ordering: .relaxed)
        running.wrappingAdd(1, ordering: .sequentiallyConsistent)
        countSearcher(worker)
        lock.unlock()
        watchdog.startIfNeeded(pool: self)
        startThread(for: worker)
    }

    /// A slot with no thread (reused, or a new one). Called with the lock held.
    ///
    /// Any slot serves a thread of either kind (regular or reserve): the limits are the
    /// thread counts (`liveThreads`, `reserveThreads`), and the slots number both limits'
    /// sum, so one is free whenever a limit allows a thread (unless an exiting thread has
    /// given up its slot's claim, `hasThread`, and not yet returned: that start waits).
    func claimThreadlessSlot() -> Worker? {
        let count = slotCount.load(ordering: .relaxed)
        for index in 0..<count {
            let candidate = worker(at: index)
            if !candidate.hasThread && !candidate.isParked { return candidate }
        }
        guard count < slotCapacity else { return nil }
        let worker = Worker(index: count)
        cnv_atomic_store_slot_release(slots + count, UInt(bitPattern: Unmanaged.passRetained(worker).toOpaque()))
        slotCount.store(count + 1, ordering: .releasing)
        return worker
    }

    func startThread(for worker: Worker) {
        let argument = Unmanaged.passUnretained(worker).toOpaque()
        if cnv_thread_start({ workerThreadEntry($0) }, argument, 0) != 0 {
            lock.withLock {
                worker.hasThread = false
                worker.urgentBand.store(Worker.noUrgentBand, ordering: .relaxed)
                running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                if worker.isReserve {
                    worker.isReserve = false
                    reserveThreads.wrappingSubtract(1, ordering: .relaxed)
                } else {
                    liveThreads.wrappingSubtract(1, ordering: .relaxed)
                    uncountSearcher(worker)
                }
            }
        }
    }

    /// A regular pool thread's `runLoop` returned (reserve threads: `reserveDidExit`).
    func threadDidExit() {
        liveThreads.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Lowers the thread cap to `cap` (never below 1, never raised) for a test that must
    /// reach it quickly. Call it before the pool started threads: threads started already
    /// stay.
    func lowerThreadCap(to cap: Int) {
        threadCap.store(max(1, min(cap, maxThreads)), ordering: .relaxed)
    }

    /// Lowers the reserve thread limit to `limit` (never below 2, so that one reserve
    /// thread may take jobs pushed behind: `reserveJob`; never raised), for a test that
    /// must reach it quickly. Call it before the pool started threads.
    func lowerReserveThreadLimit(to limit: Int) {
        reserveLimit.store(max(2, min(limit, reserveThreadLimit)), ordering: .relaxed)
    }

    /// `worker`'s thread leaves the pool (`exitPolite`, `reserveDidExit`): it stops being
    /// the calling thread's worker, gives up its slot and stops counting as running (and
    /// as a reserve thread). From here on a new thread may take the slot and reset its
    /// owner-thread state.
    func leavePool(_ worker: Worker) {
        cnv_tls_set_context(nil)
        lock.lock()
        worker.hasThread = false
        running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        if worker.isReserve {
            worker.isReserve = false
            reserveThreads.wrappingSubtract(1, ordering: .relaxed)
        }
        lock.unlock()
    }
}
