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

/// The jobs that workers posted just before they stopped running jobs (blocked in a
/// Conveyor wait, retired, left): `WorkerPool.handOffLocalWork` puts them here, and every
/// worker takes from here before the bands' shared queues.
///
/// The newest batch first, each batch in the order its jobs were posted: a worker that
/// blocks most likely waits for what it posted last, and the batches handed off before
/// it are often jobs that will block in turn (a job posts a thousand blocks that each
/// post a block and wait for it, then waits for them all: first in, first out, the
/// thousand would take every thread the pool may have before any of their posts ran).
/// Within a batch the posting order holds, as it would have on the worker's ring.
///
/// A lock, not a lock-free list: a batch is pushed only when a worker blocks, and takers
/// look at the lock only when the count says there is a job.
final class HandOffQueue: @unchecked Sendable {
    private let lock = FutexLock()
    /// Newest batch last, each batch reversed: the last element is the next job.
    private var jobs: [Unmanaged<Job>] = []
    /// `jobs.count`, for looks without the lock.
    private let jobCount = Atomic<Int>(0)

    init() {}

    /// Whether the queue holds no job (a racy look; see `WorkerPool.notifyWorkAvailable`
    /// for how a push and a searcher's look pair).
    var isEmpty: Bool { jobCount.load(ordering: .acquiring) == 0 }

    /// Puts the jobs that `next` returns, in that order, ahead of every earlier batch.
    /// Returns true when the queue was empty before and the batch was not (the caller
    /// then owes a wake-up, as `WorkerPool.inject`'s rule says).
    func pushBatch(_ next: () -> Job?) -> Bool {
        lock.withLock {
            let before = jobs.count
            while let job = next() { jobs.append(Unmanaged.passRetained(job)) }
            guard jobs.count > before else { return false }
            jobs[before...].reverse()
            jobCount.store(jobs.count, ordering: .releasing)
            return before == 0
        }
    }

    /// The next job: the first of the newest batch.
    func pop() -> Job? {
        if isEmpty { return nil }
        return lock.withLock {
            guard let job = jobs.popLast() else { return nil }
            jobCount.store(jobs.count, ordering: .releasing)
            return job.takeRetainedValue()
        }
    }
}
