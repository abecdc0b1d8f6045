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

/// The jobs that workers posted just before they blocked in a Conveyor wait, and what
/// workers held when they blocked or left (`WorkerPool.handOffLocalWork` puts them here),
/// and LIFO jobs the watchdog took from owners stuck inside a job
/// (`WorkerPool.handOffSlot`): workers take them before the bands' shared queues, within
/// limits (`WorkerPool.popAheadOfBands`). Jobs that are not posts of a blocked job go
/// behind all the others (`pushBehind`).
///
/// The newest batch first, each batch in the order `handOffLocalWork` gives it: a worker
/// that blocks most likely waits for what it posted last, and the batches handed off
/// before it are often jobs that will block in turn (a job posts a thousand blocks that
/// each post a block and wait for it, then waits for them all: first in, first out, the
/// thousand would take every thread the pool may have before any of their posts ran).
/// Once the oldest batch has waited `WorkerPool.agingNanoseconds`, one take in
/// `WorkerPool.agingShare + 1` is from it, so that a steady stream of newer batches never
/// holds an old one (and its blocked owner) for ever; not more, since old batches are
/// often waiters, each of whose posts the newer takes then serve.
///
/// A lock, not a lock-free list: a batch is pushed only when a worker blocks with posts
/// of its job queued (or at a watchdog tick), and takers look at the lock only when the
/// count says there is a job.
final class HandOffQueue: @unchecked Sendable {
    private struct Entry {
        let job: Unmanaged<Job>
        let pushedAt: UInt64
    }

    private let lock = FutexLock()
    /// Newest batch last, each batch reversed: the last entry is the newest batch's first
    /// job. Entries before `oldest` were taken from the front (aged) and are stale.
    private var entries: [Entry] = []
    private var oldest = 0
    /// Jobs held at the front (from `oldest` on) that `pushBehind` put there.
    private var behind = 0
    /// Takes since the oldest batch last got an aged turn.
    private var takesSinceAgedTurn = 0
    /// The number of jobs held, for looks without the lock.
    private let jobCount = Atomic<Int>(0)
    /// When the oldest job held was pushed (0 when empty), for looks without the lock.
    private let oldestPushedAt = Atomic<UInt64>(0)
    /// The band of the job `pop` returns unless the oldest has aged (`Int.max` when empty).
    private let newestBand = Atomic<Int>(.max)
    /// The number of jobs held that `pushBehind` did not put there, for looks without the
    /// lock.
    private let postCount = Atomic<Int>(0)

    init() {}

    /// Whether the queue holds no job (a racy look; a push and a searcher's look pair
    /// through `WorkerPool.notifyWorkAvailable`'s fence, as for the bands' queues).
    var isEmpty: Bool { jobCount.load(ordering: .acquiring) == 0 }

    /// Whether the queue holds a job that `pushBehind` did not put there (a racy look).
    var holdsPosts: Bool { postCount.load(ordering: .acquiring) > 0 }

    /// The band of the next job of the newest batch (a racy look).
    var nextBand: Int { newestBand.load(ordering: .relaxed) }

    /// Whether the oldest job held was pushed more than `nanoseconds` before `now`.
    func oldestWaited(_ nanoseconds: UInt64, at now: UInt64) -> Bool {
        let pushedAt = oldestPushedAt.load(ordering: .relaxed)
        return pushedAt != 0 && Self.waited(since: pushedAt, longerThan: nanoseconds, at: now)
    }

    /// Whether more than `nanoseconds` passed from `pushedAt` to `now` (a clock read on
    /// another core may be a hair behind `pushedAt`).
    private static func waited(since pushedAt: UInt64, longerThan nanoseconds: UInt64, at now: UInt64) -> Bool {
        now > pushedAt && now - pushedAt > nanoseconds
    }

    /// Puts the jobs that `next` returns, in that order, ahead of every earlier batch.
    /// Returns true when the queue was empty before and the batch was not (the caller
    /// then owes a wake-up, as `WorkerPool.inject`'s rule says).
    func pushBatch(at now: UInt64, _ next: () -> Job?) -> Bool {
        lock.withLock {
            let before = entries.count
            while let job = next() { entries.append(Entry(job: retainedForPublishing(job), pushedAt: now)) }
            guard entries.count > before else { return false }
            entries[before...].reverse()
            return published(wasEmpty: before == oldest)
        }
    }

    /// Puts the jobs that `next` returns, in that order, behind every job held: taken
    /// after all of them, or as the oldest when aging gives the oldest a turn (their
    /// stamp is the oldest held job's, if older than `now`, so that aging still sees how
    /// long the front of the queue has waited). Returns true when the queue was empty
    /// before and the batch was not. For work that is not what a blocked job waits for
    /// (`WorkerPool.handOffLocalWork`): ahead of the newer batches it would hold them back.
    func pushBehind(at now: UInt64, _ next: () -> Job?) -> Bool {
        lock.withLock {
            let stamp = entries.count > oldest ? min(now, entries[oldest].pushedAt) : now
            var batch: [Entry] = []
            while let job = next() { batch.append(Entry(job: retainedForPublishing(job), pushedAt: stamp)) }
            guard !batch.isEmpty else { return false }
            let wasEmpty = entries.count == oldest
            // The oldest entry is at `oldest`, the first job of the batch must come right
            // before it: the batch goes in reversed, in place of the stale entries.
            entries.replaceSubrange(0..<oldest, with: batch.reversed())
            oldest = 0
            behind += batch.count
            return published(wasEmpty: wasEmpty)
        }
    }

    /// The next job: the first of the newest batch, or, every `share + 1`th take while
    /// the oldest job has waited longer than `agingAfter` nanoseconds before `now`, that
    /// oldest job. With `postsOnly`, never a job that `pushBehind` put there (nil if only
    /// such jobs are held).
    func pop(at now: UInt64, agingAfter: UInt64, share: Int, postsOnly: Bool = false) -> Job? {
        if isEmpty { return nil }
        return lock.withLock { () -> Job? in
            guard entries.count > oldest else { return nil }
            let posts = entries.count - oldest - behind
            if postsOnly && posts == 0 { return nil }
            let entry: Entry
            let aged = Self.waited(since: entries[oldest].pushedAt, longerThan: agingAfter, at: now)
            takesSinceAgedTurn = aged ? takesSinceAgedTurn + 1 : 0
            if aged && takesSinceAgedTurn > share && !(postsOnly && behind > 0) {
                takesSinceAgedTurn = 0
                entry = entries[oldest]
                oldest += 1
                if behind > 0 { behind -= 1 }
            } else {
                entry = entries.removeLast()
                if posts == 0 { behind -= 1 }
            }
            if oldest == entries.count {
                entries.removeAll(keepingCapacity: true)
                oldest = 0
            } else if oldest > 64 && oldest > entries.count / 2 {
                entries.removeFirst(oldest)   // amortized: each entry moves at most once per halving
                oldest = 0
            }
            _ = published(wasEmpty: false)
            return entry.job.takeRetainedValue()
        }
    }

    /// Updates the lock-free looks after a change; returns `wasEmpty` when jobs are held.
    /// Called with the lock held.
    private func published(wasEmpty: Bool) -> Bool {
        let held = entries.count - oldest
        postCount.store(held - behind, ordering: .releasing)
        jobCount.store(held, ordering: .releasing)
        oldestPushedAt.store(held > 0 ? entries[oldest].pushedAt : 0, ordering: .relaxed)
        newestBand.store(held > 0 ? Int(entries[entries.count - 1].job._withUnsafeGuaranteedRef { $0.band.rawValue }) : .max,
                         ordering: .relaxed)
        return wasEmpty && held > 0
    }
}
