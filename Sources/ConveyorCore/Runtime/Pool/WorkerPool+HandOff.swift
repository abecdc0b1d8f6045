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

// A worker that stops running jobs for a while (it blocks in a Conveyor wait, retires or
// leaves the pool) hands its own queued work to the others.
extension WorkerPool {
    /// Gives `worker`'s LIFO slot and ring to the shared queues: nobody else may take the
    /// slot, and work in the ring would wait until some worker searched and stole it.
    /// Returns whether a shared queue went from empty to non-empty, that is whether a
    /// wake-up is owed (`inject`'s rule). Called on the worker's own thread.
    func handOffLocalWork(of worker: Worker) -> Bool {
        var madeNonEmpty = false
        if let raw = worker.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing) {
            madeNonEmpty = pushInjected(Job.takeRetained(raw)) || madeNonEmpty
        }
        while let job = worker.local.pop() {
            madeNonEmpty = pushInjected(job) || madeNonEmpty
        }
        return madeNonEmpty
    }

    /// The calling thread is about to block in a Conveyor wait. If it is a worker, it stops
    /// counting as runnable, gives its queued jobs to the others, and another worker is
    /// woken or started at once if work is waiting. Returns the worker to pass to `didUnblock`.
    func willBlock() -> Worker? {
        guard let worker = Worker.current, !worker.isBlocked else { return nil }
        worker.isBlocked = true
        worker.inConveyorWait.store(true, ordering: .relaxed)
        _ = handOffLocalWork(of: worker)
        // A blocked job of an overcommitting queue still holds its thread but asks for no
        // extra runnable worker meanwhile: its credit goes with it (libdispatch does not
        // replace a blocked overcommit thread either).
        if worker.runsOvercommit.load(ordering: .relaxed) { overcommitCredit.wrappingSubtract(1, ordering: .relaxed) }
        running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        if hasVisibleWork() { notifyWorkAvailable() }
        return worker
    }

    /// The worker returned from a wait that `willBlock` announced.
    func didUnblock(_ worker: Worker?) {
        guard let worker else { return }
        worker.isBlocked = false
        worker.inConveyorWait.store(false, ordering: .relaxed)
        if worker.runsOvercommit.load(ordering: .relaxed) { overcommitCredit.wrappingAdd(1, ordering: .relaxed) }
        running.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }
}

/// Runs `body`, telling the pool that the calling thread is blocked meanwhile.
@inline(__always)
func withBlockingHint<R>(_ body: () throws -> R) rethrows -> R {
    let worker = WorkerPool.shared.willBlock()
    defer { WorkerPool.shared.didUnblock(worker) }
    return try body()
}
