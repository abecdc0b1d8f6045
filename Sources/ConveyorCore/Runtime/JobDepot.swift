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

/// The shared store of job batches between threads' caches (one per job kind): owned
/// references, `JobStack.batchSize` to a batch, copied in and out under a lock (once per
/// batch, not per job).
///
/// A batch given to the depot first waits out `reuseDistance` later batches in a
/// quarantine (first in, first out), then goes on a stack, from which batches are handed
/// out newest first. So a job comes back to a submitting thread about 8,000 jobs after it
/// ran, when the worker that ran it has gone on to other memory, and yet not colder than
/// that when the depot holds a large backlog:
/// - Handed out newest first with no quarantine, a `dispatch_async_f` burst to a serial
///   queue reused the jobs the worker had run a few hundred jobs earlier: every field the
///   submitter wrote had first to be taken back from the worker's cache, and the
///   submitter waited for it at its tail exchange (1M jobs, 14 alternating rounds:
///   median 37.8 ns per job with a quarantine of one batch, 28.7 with this one).
/// - Handed out oldest first, a depot holding a whole burst's jobs gives those that have
///   waited longest, out of every cache. A first-in first-out trial was slower on 500k
///   `dispatch_group_async_f` to an inactive queue drained afterwards (that trial also
///   carried a cost in the drain fixed since, so it gives no clean figure; this order
///   measured 40.7 ns per job there against 44.5 before any of it).
///
/// It holds up to `maxBatches`, enough for the backlog of a burst: a producer that
/// submits faster than the workers run keeps every job of its backlog alive at once, and
/// with the store capped at the 256 batches it keeps for good, every job beyond them was
/// freed after it ran and allocated again for the next burst (in the C API's group
/// workload, one submission in six went to `malloc`, a fifth of the submitting thread's
/// time). What a burst left above `keptBatches` is freed when the pool's threads have
/// been idle for their idle timeout (`trimToKept`, called by a worker that exits idle), as
/// an allocator returns memory some seconds after a peak.
final class JobDepot: @unchecked Sendable {
    static let closures = JobDepot()
    static let functions = JobDepot()
    /// Batches a given batch waits behind before it can be handed out: 128 batches, 8,192
    /// jobs, about 650 KB, somewhat less than a core's private cache on the machine
    /// measured (64 measured alike; 256, at 1.3 MB, was slower, in a first-in first-out
    /// trial of the same idea).
    static let reuseDistance = 128
    /// Kept however long the depot is unused, quarantine included: 256 batches, 16,384
    /// jobs, about 1.5 MB.
    static let keptBatches = 256
    /// The most a depot holds, quarantine included: 4,096 batches, 262,144 jobs, about
    /// 25 MB of jobs per depot (two: closures and functions), the backlog's own jobs, kept
    /// after the burst until a worker goes idle.
    static let maxBatches = 4_096
    private static let keptOnStack = keptBatches - reuseDistance
    private static let maxOnStack = maxBatches - reuseDistance

    private let lock = FutexLock()
    // Guarded by `lock`. The quarantine: a ring of `reuseDistance` batches, the oldest at
    // `quarantineFirst`.
    private let quarantine = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(
        capacity: JobDepot.reuseDistance * JobStack.batchSize)
    private var quarantineFirst = 0
    private var quarantined = 0
    // Guarded by `lock`. The stack of batches that can be handed out, newest on top.
    private var stack: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private var stackCapacity: Int
    private var stacked = 0
    /// `stacked`, written under the lock, read without it (see `takeBatch`).
    private let stackedHint = Atomic<Int>(0)

    init() {
        stackCapacity = Self.keptOnStack
        stack = .allocate(capacity: stackCapacity * JobStack.batchSize)
    }

    /// Batches held now, quarantine included (a racy look, for tests).
    var heldBatches: Int { lock.withLock { quarantined + stacked } }

    /// Batches that can be handed out now (a racy look, for tests).
    var availableBatches: Int { stackedHint.load(ordering: .relaxed) }

    private func quarantineSlot(_ offset: Int) -> UnsafeMutablePointer<UnsafeMutableRawPointer> {
        quarantine + ((quarantineFirst + offset) % Self.reuseDistance) * JobStack.batchSize
    }

    private func stackSlot(_ index: Int) -> UnsafeMutablePointer<UnsafeMutableRawPointer> {
        stack + index * JobStack.batchSize
    }

    /// Copies the newest batch out of quarantine into `slots` and returns its size; 0 when
    /// none is (the caller allocates a job instead).
    func takeBatch(into slots: UnsafeMutablePointer<UnsafeMutableRawPointer>) -> Int {
        // A producer whose cache ran dry asks here on every submission; while the depot
        // has nothing to hand out, the hint answers without the lock (a locked CAS per
        // submission showed in profiles of dispatch_async_f bursts). The hint is written
        // under the lock; reading a stale value only costs one allocation, never a job:
        // nothing waits on it.
        if stackedHint.load(ordering: .relaxed) == 0 { return 0 }
        return lock.withLock {
            if stacked == 0 { return 0 }
            stacked -= 1
            stackedHint.store(stacked, ordering: .relaxed)
            slots.update(from: stackSlot(stacked), count: JobStack.batchSize)
            return JobStack.batchSize
        }
    }

    /// Takes over the batch at `slots` (`JobStack.batchSize` references) into quarantine,
    /// moving the batch that waited longest there onto the stack; frees that one when the
    /// depot is full.
    func giveBatch(from slots: UnsafeMutablePointer<UnsafeMutableRawPointer>) {
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer.self, capacity: JobStack.batchSize) { freed in
            let full = lock.withLock { () -> Bool in
                var full = false
                if quarantined == Self.reuseDistance {
                    let released = quarantineSlot(0)
                    if stacked == stackCapacity && stackCapacity < Self.maxOnStack {
                        resizeStack(to: min(stackCapacity * 2, Self.maxOnStack), keepingTop: stacked)
                    }
                    if stacked < stackCapacity {
                        stackSlot(stacked).moveInitialize(from: released, count: JobStack.batchSize)
                        stacked += 1
                        stackedHint.store(stacked, ordering: .relaxed)
                    } else {
                        freed.baseAddress!.moveInitialize(from: released, count: JobStack.batchSize)
                        full = true
                    }
                    quarantineFirst = (quarantineFirst + 1) % Self.reuseDistance
                    quarantined -= 1
                }
                quarantineSlot(quarantined).initialize(from: slots, count: JobStack.batchSize)
                quarantined += 1
                return full
            }
            if full { Self.release(freed.baseAddress!, count: JobStack.batchSize) }
        }
    }

    /// Moves the top `kept` batches of the stack to new storage of `capacity` batches and
    /// frees the old storage; the batches below them must have been moved out already.
    /// Under the lock (copying up to 1 MB of pointers when growing: five times per depot
    /// at most between trims).
    private func resizeStack(to capacity: Int, keepingTop kept: Int) {
        let moved = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: capacity * JobStack.batchSize)
        moved.moveInitialize(from: stackSlot(stacked - kept), count: kept * JobStack.batchSize)
        stack.deallocate()
        stack = moved
        stackCapacity = capacity
        stacked = kept
        stackedHint.store(stacked, ordering: .relaxed)
    }

    /// Frees the batches above `keptBatches` (the stack's bottom, which waited longest) and
    /// shrinks the storage back (the jobs are released after the lock is given back).
    func trimToKept() {
        let excess: (slots: UnsafeMutablePointer<UnsafeMutableRawPointer>, count: Int)? = lock.withLock {
            guard stackCapacity > Self.keptOnStack else { return nil }
            let kept = min(stacked, Self.keptOnStack)
            let count = (stacked - kept) * JobStack.batchSize
            let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: max(count, 1))
            slots.moveInitialize(from: stack, count: count)
            resizeStack(to: Self.keptOnStack, keepingTop: kept)
            return (slots, count)
        }
        guard let excess else { return }
        Self.release(excess.slots, count: excess.count)
        excess.slots.deallocate()
    }

    /// Trims both depots (see `trimToKept`).
    static func trimAll() {
        closures.trimToKept()
        functions.trimToKept()
    }

    /// Drops the references at `slots`, freeing the jobs.
    static func release(_ slots: UnsafeMutablePointer<UnsafeMutableRawPointer>, count: Int) {
        for index in 0..<count { Unmanaged<RecycledJob>.fromOpaque(slots[index]).release() }
    }

    deinit {
        for offset in 0..<quarantined { Self.release(quarantineSlot(offset), count: JobStack.batchSize) }
        Self.release(stack, count: stacked * JobStack.batchSize)
        quarantine.deallocate()
        stack.deallocate()
    }
}
