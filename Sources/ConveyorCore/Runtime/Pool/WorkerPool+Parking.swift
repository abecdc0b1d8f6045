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

/// Parking: a worker that found no work sleeps on its futex, after a last look for work,
/// and one parked worker at a time watches the LIFO slots of busy workers.
extension WorkerPool {
    /// Parks `worker` until there is work. Returns false when the thread should exit.
    func park(_ worker: Worker) -> Bool {
        if worker.isSearching {
            if uncountSearcher(worker) == 0 && hasVisibleWork() {
                countSearcher(worker)
                worker.isSearching = true
                return true
            }
        }
        return sleep(worker, retiring: false)
    }

    /// Parks a worker that is surplus (more runnable workers than wanted). Returns false
    /// when the thread should exit.
    func retire(_ worker: Worker) -> Bool {
        // The ring too, not only the LIFO slot: it may hold work made runnable just before
        // (a notify from the held leaves given before retiring), which a busy pool would
        // only find when some worker next searched.
        if handOffLocalWork(of: worker, waitingOnPosts: false) { notifyWorkAvailable() }
        return sleep(worker, retiring: true)
    }

    private func sleep(_ worker: Worker, retiring: Bool) -> Bool {
        lock.lock()
        if retiring && running.load(ordering: .relaxed) <= target {
            lock.unlock()
            return true
        }
        worker.isParked = true
        idle.append(worker.index)
        running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        lock.unlock()

        if !retiring && hasVisibleWork() && unparkSelf(worker) { return true }

        // One parked worker at a time watches the LIFO slots of busy workers (see
        // `lifoWatchNanoseconds`); the others sleep until woken or the idle timeout.
        var watching = !retiring && lifoWatcher.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        var lastSeen: [UInt64] = []
        while watching {
            if worker.parker.park(timeoutNanoseconds: Self.lifoWatchNanoseconds) {
                lifoWatcher.store(false, ordering: .releasing)
                worker.isSearching = true   // the waker counted this worker as searching
                return true
            }
            if hasWaitingLIFOJob(lastSeen: &lastSeen) {
                lifoWatcher.store(false, ordering: .releasing)
                if unparkSelf(worker) { return true }
                worker.parker.park()   // a waker chose this worker meanwhile: take its wake-up
                worker.isSearching = true
                return true
            }
            if running.load(ordering: .relaxed) == 0 {
                // Nobody runs a job, so no LIFO slot fills without a wake-up: a filler
                // that finds no watcher wakes a worker (`submit`). Dekker pairing with
                // that filler (slot store, fence, load of `lifoWatcher`): this clears the
                // flag, fences, then looks at the slots, so a fill that still saw the
                // flag set is seen here, and this worker goes on watching.
                lifoWatcher.store(false, ordering: .releasing)
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                watching = hasVisibleWork(includingLIFO: true)
                    && lifoWatcher.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
            }
        }

        if !worker.parker.park(timeoutNanoseconds: idleTimeoutNanoseconds) {
            lock.lock()
            if worker.isParked {
                worker.isParked = false
                worker.hasThread = false
                idle.removeAll { $0 == worker.index }
                lock.unlock()
                // This worker found no work for the idle timeout: a burst's surplus of
                // recycled jobs goes too (if other workers are still busy, they allocate
                // again what they need).
                JobDepot.trimAll()
                return false
            }
            lock.unlock()
            worker.parker.park()   // a waker chose this worker meanwhile: take its wake-up
        }
        worker.isSearching = true   // the waker counted this worker as searching
        return true
    }

    /// Takes `worker` off the idle list again if no waker has taken it yet.
    private func unparkSelf(_ worker: Worker) -> Bool {
        lock.lock()
        guard worker.isParked else {
            lock.unlock()
            return false
        }
        worker.isParked = false
        idle.removeAll { $0 == worker.index }
        running.wrappingAdd(1, ordering: .sequentiallyConsistent)
        countSearcher(worker)
        lock.unlock()
        worker.isSearching = true
        return true
    }
}
