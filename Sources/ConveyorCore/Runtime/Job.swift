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

/// The unit the runtime moves around: anything a queue or a worker can run.
///
/// Jobs are intrusive: the link to the next job lives in the job itself, so putting a job
/// on a queue's list allocates nothing (the pool's shared queues keep job pointers in
/// slot arrays instead, `SegmentedJobQueue`). A job is on at most one list at a time; the
/// list owns one retain on it (passed as an `Unmanaged` pointer).
@usableFromInline
class Job: @unchecked Sendable {
    /// Link to the next job on an intrusive list (written by a producer, read by the consumer).
    @usableFromInline final let next = Atomic<UnsafeMutableRawPointer?>(nil)
    // The mutable fields below are touched by one thread at a time: the submitter before
    // the push, the runner after the pop (the list's release/acquire orders the hand-over).
    // Swift's run-time exclusivity check on each access (swift_beginAccess, ~11% of
    // group-fan-out with the cache's checks) can catch nothing here, so it is off.

    /// The priority band this job asks for (see `QoSBand`).
    @exclusivity(unchecked) @usableFromInline final var band: QoSBand
    /// Whether this job must run alone on a concurrent queue.
    @exclusivity(unchecked) @usableFromInline final var isBarrier: Bool
    /// The band of the global queue the job was submitted to straight (set by that
    /// queue's `enqueue`): the queue its work runs on for `dispatchPrecondition` and C's
    /// current queue, where `band` may be the job's own, more important QoS. (In the
    /// padding before `redirectQueue`: a job is no larger for it.)
    @exclusivity(unchecked) @usableFromInline final var rootBand: QoSBand
    /// Set while an item of a concurrent queue runs on the pool: the queue gets its width
    /// back when the item is done.
    @exclusivity(unchecked) @usableFromInline final var redirectQueue: DispatchQueue?
    /// Set when the job comes from an overcommitting global queue (C's
    /// `DISPATCH_QUEUE_OVERCOMMIT`): while it runs, the pool wants one more runnable worker,
    /// so such work always gets a thread, even when it spins (`WorkerPool.beginOvercommit`).
    @exclusivity(unchecked) @usableFromInline final var isOvercommit = false

    /// Whether this job stands for a queue being scheduled (its drain). Only such jobs may
    /// use a worker's LIFO slot: the order between different queues is free, while the
    /// tasks of one global queue must start in the order they were submitted.
    final let isQueueDrain: Bool

    init(band: QoSBand, isBarrier: Bool = false, isQueueDrain: Bool = false) {
        self.band = band
        self.isBarrier = isBarrier
        self.rootBand = band
        self.isQueueDrain = isQueueDrain
    }

    /// Runs the job on the calling thread. `queue` is the queue whose drain runs it
    /// (nil when a worker runs it straight from the pool).
    @usableFromInline
    func run(on queue: DispatchQueue?) { fatalError("Job.run must be overridden") }

    /// Runs the job, then gives up the reference the caller took from a list (the caller
    /// passes it on instead of releasing it): `run` and a release, except that a recycled
    /// job hands that reference to the thread's job cache, with no atomic operation and no
    /// write to the job. The caller must not touch the job afterwards.
    @usableFromInline
    func runConsumingReference(on queue: DispatchQueue?) {
        run(on: queue)
        Unmanaged.passUnretained(self).release()
    }

    /// `runConsumingReference(on: nil)` for a worker that took the job straight from the
    /// pool; a recycled job in a group leaves it through the worker (`Worker.leaveLater`).
    func runConsumingReference(onWorker worker: Worker) {
        runConsumingReference(on: nil)
    }

    /// The group whose leave a worker may hold back while it runs this job (see
    /// `Worker.leaveLater`): a recycled job's group, else nil.
    var groupLeftByWorker: Unmanaged<DispatchGroup>? { nil }

    /// Whether this job is a thread waiting in `sync` (the drain treats those specially).
    @usableFromInline
    var syncWaiter: SyncWaiter? { nil }

    /// Whether this job is a thread waiting in `sync` that runs its own work once granted
    /// (every waiter but those of main-bound queues, whose work a drain runs by proxy).
    @usableFromInline
    final var isSelfServedSyncWaiter: Bool {
        guard let waiter = syncWaiter else { return false }
        return !waiter.runsByProxy
    }

    /// Hands the job to a list: one retain travels with the pointer, taken before the
    /// pointer can be published (`retainedForPublishing`).
    @inline(__always)
    final func retainedPointer() -> UnsafeMutableRawPointer {
        retainedForPublishing(self).toOpaque()
    }

    /// Takes a job back from a list, with the retain the list held.
    @inline(__always)
    static func takeRetained(_ pointer: UnsafeMutableRawPointer) -> Job {
        Unmanaged<Job>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Looks at a job on a list without taking it.
    @inline(__always)
    static func peek(_ pointer: UnsafeMutableRawPointer) -> Job {
        Unmanaged<Job>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// A job that is recycled through `JobCache` once it has run (`ClosureJob`, and
/// `FunctionJob` of the C API).
@usableFromInline
class RecycledJob: Job, @unchecked Sendable {
    /// Whether the job goes to the cache's stack of function jobs (else closure jobs).
    final let isFunctionJob: Bool

    /// The group this job leaves once its work is done, if any. Not retained: a non-empty
    /// group keeps itself alive (see `DispatchGroup.enter()`). `Unmanaged`, not
    /// `unowned(unsafe)`: calling through an `unowned(unsafe)` reference still retains and
    /// releases it around the call, an atomic pair on a line every worker leaving the
    /// group shares (a tenth of dispatch_group_async_f bursts). The field keeps its stale
    /// value after the leave until the job is reused (`make` overwrites it): no write to
    /// the job when it runs.
    @exclusivity(unchecked) @usableFromInline final var group: Unmanaged<DispatchGroup>?

    init(band: QoSBand, isBarrier: Bool, isFunctionJob: Bool, group: DispatchGroup?) {
        self.isFunctionJob = isFunctionJob
        self.group = group.map(Unmanaged.passUnretained)
        super.init(band: band, isBarrier: isBarrier)
    }

    /// The submitted work, once per submission (the subclass's); the group is left after
    /// it, here.
    func perform() { fatalError("RecycledJob.perform must be overridden") }

    override final func run(on queue: DispatchQueue?) {
        perform()
        group?._withUnsafeGuaranteedRef { $0.leave() }
        JobCache.withCurrent { $0.put(Unmanaged.passRetained(self)) }
    }

    override final func runConsumingReference(on queue: DispatchQueue?) {
        perform()
        group?._withUnsafeGuaranteedRef { $0.leave() }
        JobCache.withCurrent { $0.put(Unmanaged.passUnretained(self)) }
    }

    override final func runConsumingReference(onWorker worker: Worker) {
        perform()
        if let group { worker.leaveLater(group) }
        JobCache.withCurrent { $0.put(Unmanaged.passUnretained(self)) }
    }

    override final var groupLeftByWorker: Unmanaged<DispatchGroup>? { group }
}

/// A closure submitted with `async`, with the group it belongs to, if any. Finished
/// jobs are recycled through `JobCache`; make them with `ClosureJob.make`.
@usableFromInline
final class ClosureJob: RecycledJob, @unchecked Sendable {
    private static let nothing: @Sendable () -> Void = {}

    // One thread at a time, as `Job`'s fields: no run-time exclusivity checks.
    @exclusivity(unchecked) @usableFromInline var body: () -> Void

    private init(band: QoSBand, isBarrier: Bool, group: DispatchGroup?, body: @escaping () -> Void) {
        self.body = body
        super.init(band: band, isBarrier: isBarrier, isFunctionJob: false, group: group)
    }

    /// A job for `body`: a recycled one when the thread's cache has one.
    @inline(__always)
    static func make(band: QoSBand, isBarrier: Bool, group: DispatchGroup?, body: @escaping () -> Void) -> ClosureJob {
        if let job = JobCache.withCurrent({ $0.take() }) {
            job.band = band
            job.isBarrier = isBarrier
            job.isOvercommit = false   // the last use may have come from an overcommitting queue
            job.group = group.map(Unmanaged.passUnretained)
            job.body = body
            return job
        }
        return ClosureJob(band: band, isBarrier: isBarrier, group: group, body: body)
    }

    /// A job for work submitted to `queue` with a submission's `qos` and `flags`.
    @inline(__always)
    static func make(for queue: DispatchQueue, qos: DispatchQoS, flags: DispatchWorkItemFlags,
                     group: DispatchGroup? = nil, body: @escaping () -> Void) -> ClosureJob {
        make(band: flags.band(for: qos) ?? queue.band, isBarrier: flags.contains(.barrier), group: group, body: body)
    }

    /// Invariant (issue 11, finding 9): the closure's context — and so everything it
    /// captured — is released before the group is left. A thread whose `group.wait()`
    /// returns may count on the captured objects being gone (as with libdispatch, which
    /// releases the block before `dispatch_group_leave`); leaving first let them outlive
    /// the wait in most rounds.
    override func perform() {
        runAndReleaseBody()   // the closure's context is released now, before anyone is told
    }

    /// Moves the closure out of the job (no retain: `swap` on the unchecked field), calls
    /// it, and releases it on return. Calling `body()` in place and then overwriting it
    /// cost three atomic operations on the context's reference count (copy for the call,
    /// release after it, release of the old value) where one is needed; a context shared
    /// with the submitting thread (a captured object) pays each as a cache-line transfer
    /// (serial-async: swift_retain/release were a third of the worker's time).
    @inline(__always)
    private func runAndReleaseBody() {
        var work: () -> Void = Self.nothing
        swap(&work, &body)
        work()
    }
}
