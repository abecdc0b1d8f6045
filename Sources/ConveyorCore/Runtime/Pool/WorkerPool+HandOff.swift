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
    /// Gives `worker`'s LIFO slot and ring to the others, on the pool's hand-off queue,
    /// which workers take from before the bands' shared queues (`popAheadOfBands`): only
    /// a long search (or the watchdog, a tick later) would take the slot, and work in the
    /// ring would wait until some worker searched and stole it. Returns whether the queue
    /// went from empty to non-empty, that is whether a wake-up is owed (`inject`'s rule).
    /// Called on the worker's own thread.
    ///
    /// Not to the bands' shared queues: at the back of one, a job would wait behind
    /// everything posted since, and when that is more blocking work than the pool may have
    /// threads (its cap), behind work that can never finish because it waits for this
    /// job. A thousand blocks, or Swift concurrency tasks, that each post a block and wait
    /// for it hung so (found by running the test suite under the drop-in library;
    /// libdispatch hangs the same way for plain blocks, and bounds the tasks by its
    /// cooperative width); so did, at a cap of 4 threads (`PostAndWaitTests`), the
    /// waiters of a serial queue whose drain was in the slot of a worker that retired, and
    /// items of a concurrent queue whose posts another worker had stolen with half a ring
    /// and then held in its own ring when it blocked.
    ///
    /// What a job posted before it blocked (with `waitingOnPosts`, from `willBlock`: the
    /// ring's jobs past the tail it had when the job began, in order, then the slot's
    /// drain), and the slot's job of a worker that leaves, is the newest batch, taken
    /// first: it is often what a job waits for (a block it posted, then waited on). The
    /// rest of the ring (a batch taken from a shared queue, steals, work posted before
    /// the job) goes behind every job held (`HandOffQueue.pushBehind`): often more jobs
    /// that block, which ahead of the posts of the jobs already blocked would take the
    /// threads those posts need (newest first, each such batch buried the posts below it,
    /// and at the cap every thread came to wait for a buried post).
    func handOffLocalWork(of worker: Worker, waitingOnPosts: Bool) -> Bool {
        var slot = worker.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing).map { Job.takeRetained($0) }
        let now = Clock.monotonicNanoseconds()
        // Thieves take from the ring's head, the older end: the posts are its last jobs,
        // however many were stolen (an estimate if a steal races this).
        var older = waitingOnPosts ? worker.ringJobsBeforeCurrentJob : .max
        var madeNonEmpty = false
        if older > 0 && !worker.local.isEmpty {
            madeNonEmpty = handedOff.pushBehind(at: now) {
                guard older > 0 else { return nil }
                older -= 1
                return worker.local.pop()
            }
        }
        // Left: the job's posts and the slot's job. Nothing, no lock taken.
        if slot == nil && worker.local.isEmpty { return madeNonEmpty }
        return handedOff.pushBatch(at: now) { worker.local.pop() ?? slot.take() } || madeNonEmpty
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

    /// The watchdog's tick, at the cap: the ring jobs of `worker`, still inside the job of
    /// the previous tick, go to the hand-off queue (`HandOffQueue.takeRing`), its job's
    /// posts `ahead` of everything it holds when the job posted nothing since the previous
    /// tick. `scratch` is the watchdog thread's own empty ring, which a steal needs.
    func handOffRing(of worker: Worker, through scratch: LocalRunQueue, ahead: Bool) {
        if handedOff.takeRing(of: worker, through: scratch, postsAhead: ahead) { notifyWorkAvailable() }
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
        // Before `running` falls: the look below may start a reserve thread in its place.
        if worker.isReserve { blockedReserveThreads.wrappingAdd(1, ordering: .relaxed) }
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
        // Between this and `running` rising, a claim may still see `running` without this
        // thread and start a reserve thread that turns out not to be needed (within the
        // limits, which count this one as running already); it exits finding nothing.
        if worker.isReserve { blockedReserveThreads.wrappingSubtract(1, ordering: .relaxed) }
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

extension HandOffQueue {
    /// Takes the ring of `worker`, stuck inside one job (`WorkerPool.handOffRing`), in its
    /// order. The jobs it held before that job began (a batch taken from a shared queue, a
    /// steal) go behind everything held (`pushBehind`), as when a worker blocks
    /// (`WorkerPool.handOffLocalWork`): they are not what anyone waits for, and often more
    /// waiters. The job's own posts go `postsAhead` of everything held (`pushBatch`) when
    /// the job posted nothing since the previous tick, else behind too.
    ///
    /// Posts ahead: a job that posted and then computes for long (the tester's busy
    /// poster) holds what others wait for, posted before them (first in, first out,
    /// libdispatch runs it first): behind the waiters it stayed there while they took
    /// every reserve thread (cap 8, under ThreadSanitizer). Posts of a job still posting
    /// behind: such a job is a producer of new work, often blocks that will wait (one
    /// posting 20,000 that post and wait): ahead, they took every reserve thread while
    /// their posts queued behind them.
    ///
    /// The older jobs behind: a worker preempted inside a job it had just begun (a
    /// background crowd member about to wait, at nice 10 as nobody, beside busier threads
    /// at 0) held the rest of its batch, more such members; handed off ahead as if they
    /// were posts, at the same tick as a busy poster's gate opener and on top of it, they
    /// took all eight reserve threads, and the opener every member waited for stayed
    /// queued (the composition tester, C API, cap 4 with 2 reserve threads, as nobody: one
    /// hang in about 25 minutes, whose report this fits; no other way was found for jobs
    /// a plain thread submitted to become posts).
    ///
    /// `scratch` must be an empty ring that only the caller uses (`LocalRunQueue.steal`):
    /// the owner's pops and these steals race through the ring's head, which moves only
    /// by compare-and-swap. Returns whether the queue went from empty to non-empty.
    func takeRing(of worker: Worker, through scratch: LocalRunQueue, postsAhead: Bool) -> Bool {
        // Before the steals: the owner may post more meanwhile, at the ring's newer end.
        let older = worker.ringJobsBeforeCurrentJob
        var taken: [Job] = []
        // Bounded: the owner may push as fast as this steals.
        while taken.count < Int(LocalRunQueue.capacity), let first = worker.local.steal(into: scratch) {
            taken.append(first)
            while let job = scratch.pop() { taken.append(job) }
        }
        let split = min(older, taken.count)
        let now = Clock.monotonicNanoseconds()
        var olderJobs = taken[..<split].makeIterator()
        var posts = taken[split...].makeIterator()
        let olderMadeNonEmpty = pushBehind(at: now) { olderJobs.next() }
        let postsMadeNonEmpty = postsAhead ? pushBatch(at: now) { posts.next() } : pushBehind(at: now) { posts.next() }
        return olderMadeNonEmpty || postsMadeNonEmpty
    }
}
