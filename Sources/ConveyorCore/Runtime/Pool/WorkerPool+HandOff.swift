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
    /// Gives `worker`'s LIFO slot and ring to the others: only a long search (or the
    /// watchdog, a tick later) would take the slot, and work in the ring would wait until
    /// some worker searched and stole it. Returns
    /// whether a queue went from empty to non-empty, that is whether a wake-up is owed
    /// (`inject`'s rule). Called on the worker's own thread.
    ///
    /// With `waitingOnPosts` (the worker blocks inside a job: `willBlock`), what that job
    /// posted (the ring's jobs past the tail it had when the job began, in order, then the
    /// slot's drain) goes to the pool's hand-off queue, which workers take from before the
    /// bands' shared queues (`popAheadOfBands`): it is often what the job now waits for (a
    /// block it posted, then waited on). At the back of its band's shared queue it would
    /// wait behind everything posted since, and when that is more blocking work than the
    /// pool may have threads (its cap), behind work that can never finish: a thousand
    /// blocks, or Swift concurrency tasks, that each post a block and wait for it hung so
    /// (found by running the test suite under the drop-in library; libdispatch hangs the
    /// same way for plain blocks, and bounds the tasks by its cooperative width). The
    /// ring's older jobs (a batch taken from a shared queue, work posted before this job)
    /// go to their bands' shared queues: ahead of the posts, a batch of such blocking work
    /// would bring the same flood back. Without it (retiring, leaving the pool: nothing
    /// waits on the posts), everything goes to the bands' shared queues.
    func handOffLocalWork(of worker: Worker, waitingOnPosts: Bool) -> Bool {
        var madeNonEmpty = false
        // Thieves take from the ring's head, the older end: the posts are its last jobs,
        // however many were stolen (an estimate if a steal races this).
        var older = waitingOnPosts ? worker.local.count - Int(worker.local.tailPosition &- worker.ringTailAtJobStart) : .max
        while older > 0, let job = worker.local.pop() {
            older -= 1
            madeNonEmpty = pushInjected(job) || madeNonEmpty
        }
        let slot = worker.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing).map { Job.takeRetained($0) }
        if !waitingOnPosts {
            if let slot { madeNonEmpty = pushInjected(slot) || madeNonEmpty }
            return madeNonEmpty
        }
        // Left in the ring: the job's posts. Nothing posted, no lock taken.
        if slot == nil && worker.local.isEmpty { return madeNonEmpty }
        return pushPosts(of: worker, then: slot) || madeNonEmpty
    }

    /// Gives `worker`'s LIFO job (if it still holds one) to the hand-off queue, ahead of
    /// the bands' shared queues, as `willBlock` does: its owner is stuck inside a job that
    /// may wait for it, and behind everything posted since, it would wait for that too.
    /// For the watchdog, on its own thread (the slot's exchange is the only claim).
    func handOffSlot(of worker: Worker) {
        guard let raw = worker.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        var job: Job? = Job.takeRetained(raw)
        if handedOff.pushBatch(at: Clock.monotonicNanoseconds(), { job.take() }) { notifyWorkAvailable() }
    }

    /// Puts the rest of `worker`'s ring, then `slotJob`, on the hand-off queue as one
    /// batch (`handOffLocalWork`).
    private func pushPosts(of worker: Worker, then slotJob: consuming Job?) -> Bool {
        var slotJob = slotJob
        return handedOff.pushBatch(at: Clock.monotonicNanoseconds()) { worker.local.pop() ?? slotJob.take() }
    }

    /// The calling thread is about to block in a Conveyor wait. If it is a worker, it stops
    /// counting as runnable, gives its queued jobs to the others, and another worker is
    /// woken or started at once if work is waiting. Returns the worker to pass to `didUnblock`.
    func willBlock() -> Worker? {
        guard let worker = Worker.current, !worker.isBlocked else { return nil }
        worker.isBlocked = true
        worker.inConveyorWait.store(true, ordering: .relaxed)
        _ = handOffLocalWork(of: worker, waitingOnPosts: true)
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
