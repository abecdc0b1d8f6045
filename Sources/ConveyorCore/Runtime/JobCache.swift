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

/// Recycled `ClosureJob`s (and the C API's `FunctionJob`s), so that `async` makes no
/// allocation of its own beyond the closure context Swift creates (libdispatch keeps a
/// per-thread cache of continuations for the same reason: cross-thread `malloc`/`free`
/// pairs are a large part of the cost of a task).
///
/// Each thread keeps a short stack. A thread that runs more jobs than it submits (a
/// worker) hands batches to a shared depot; a thread that submits more than it runs (a
/// producer) takes batches from it.
///
/// Invariant: a cached job is held by one reference that the cache owns, as a raw
/// pointer in the cache's own array. Putting a job in and taking it out writes nothing in
/// the job: no link field, no reference count. A worker that runs a `FunctionJob` another
/// core submitted then only reads the job's cache line (a `ClosureJob` still swaps out its
/// body), and recycling it costs no atomic operation (a retain into the cache was a tenth
/// of `dispatch_async_f` bursts, most of it the write that took the line back from the
/// submitting core).
final class JobCache {
    private let closures = JobStack(depot: .closures)
    private let functions = JobStack(depot: .functions)

    /// Calls `body` with the calling thread's cache (created on first use, released when
    /// the thread exits), without retaining it.
    @inline(__always)
    static func withCurrent<R>(_ body: (JobCache) -> R) -> R {
        let raw = cnv_tls_get_job_cache() ?? install()
        return Unmanaged<JobCache>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    private static func install() -> UnsafeMutableRawPointer {
        let raw = Unmanaged.passRetained(JobCache()).toOpaque()
        cnv_tls_install_job_cache(raw) { raw in
            let cache = Unmanaged<JobCache>.fromOpaque(raw!).takeRetainedValue()
            cache.closures.drainToDepot()
            cache.functions.drainToDepot()
        }
        return raw
    }

    /// A recycled closure job, or nil when none is at hand.
    @inline(__always)
    func take() -> ClosureJob? {
        guard let raw = closures.take() else { return nil }
        return Unmanaged<ClosureJob>.fromOpaque(raw).takeRetainedValue()
    }

    /// Keeps a finished job for reuse, taking over the reference `job` holds.
    @inline(__always)
    func put(_ job: Unmanaged<RecycledJob>) {
        if job._withUnsafeGuaranteedRef({ $0.isFunctionJob }) {
            functions.put(job.toOpaque())
        } else {
            closures.put(job.toOpaque())
        }
    }

    /// A recycled function job (C API), or nil when none is at hand.
    @inline(__always)
    func takeFunctionJob() -> FunctionJob? {
        guard let raw = functions.take() else { return nil }
        return Unmanaged<FunctionJob>.fromOpaque(raw).takeRetainedValue()
    }
}

/// One thread's stack of recycled jobs of one kind (owned references, as raw pointers),
/// with the depot it trades batches with. A class, not a struct held in `JobCache`: a
/// mutating call on a class's stored struct is an exclusive access that Swift checks at
/// run time (`swift_beginAccess` on every take and put), which a class's own stored
/// properties here avoid.
final class JobStack {
    static let batchSize = 64
    private static let limit = 256

    private let depot: JobDepot
    private let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: JobStack.limit)
    // Only the owning thread touches a stack (a thread-local cache), so the run-time
    // exclusivity checks on this would guard nothing.
    @exclusivity(unchecked) private var count = 0

    init(depot: JobDepot) { self.depot = depot }

    deinit { slots.deallocate() }

    @inline(__always)
    func take() -> UnsafeMutableRawPointer? {
        if count == 0 {
            count = depot.takeBatch(into: slots)
            if count == 0 { return nil }
        }
        count -= 1
        return slots[count]
    }

    @inline(__always)
    func put(_ job: UnsafeMutableRawPointer) {
        slots[count] = job
        count += 1
        if count == Self.limit { spill() }
    }

    /// Moves the oldest batch to the depot (the newest, likelier in this core's cache, stay).
    private func spill() {
        depot.giveBatch(from: slots)
        (slots).update(from: slots + Self.batchSize, count: count - Self.batchSize)
        count -= Self.batchSize
    }

    /// The thread is exiting: full batches go to the depot, the rest is freed.
    func drainToDepot() {
        while count >= Self.batchSize {
            depot.giveBatch(from: slots + (count - Self.batchSize))
            count -= Self.batchSize
        }
        JobDepot.release(slots, count: count)
        count = 0
    }
}
