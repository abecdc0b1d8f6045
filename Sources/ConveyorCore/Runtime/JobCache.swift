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

/// The shared store of job batches between threads' caches (one per job kind): owned
/// references, `JobStack.batchSize` to a batch, copied in and out under a lock (once per
/// batch, not per job).
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
    /// Kept however long the depot is unused: 256 batches, 16,384 jobs, about 1.5 MB.
    static let keptBatches = 256
    /// The most a depot holds: 4,096 batches, 262,144 jobs, about 25 MB of jobs per depot
    /// (two: closures and functions), the backlog's own jobs, kept after the burst until a
    /// worker goes idle.
    static let maxBatches = 4_096

    private let lock = FutexLock()
    // Guarded by `lock`.
    private var storage: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private var capacity: Int
    private var batches = 0
    /// `batches`, written under the lock, read without it (see `takeBatch`).
    private let batchCount = Atomic<Int>(0)

    init() {
        capacity = Self.keptBatches
        storage = .allocate(capacity: capacity * JobStack.batchSize)
    }

    /// Batches held now (a racy look, for tests).
    var heldBatches: Int { batchCount.load(ordering: .relaxed) }

    /// Copies one batch into `slots` and returns its size (0 when the depot is empty).
    func takeBatch(into slots: UnsafeMutablePointer<UnsafeMutableRawPointer>) -> Int {
        // A producer whose cache ran dry asks here on every submission; while the depot is
        // empty, the hint answers without the lock (a locked CAS per submission showed in
        // profiles of dispatch_async_f bursts). The hint is written under the lock; reading
        // a stale zero only costs one allocation, never a job: nothing waits on it.
        if batchCount.load(ordering: .relaxed) == 0 { return 0 }
        return lock.withLock {
            if batches == 0 { return 0 }
            batches -= 1
            batchCount.store(batches, ordering: .relaxed)
            slots.update(from: storage + batches * JobStack.batchSize, count: JobStack.batchSize)
            return JobStack.batchSize
        }
    }

    /// Takes over the batch at `slots` (`JobStack.batchSize` references); frees it when
    /// the depot is full.
    func giveBatch(from slots: UnsafeMutablePointer<UnsafeMutableRawPointer>) {
        let kept = lock.withLock { () -> Bool in
            if batches == capacity {
                guard capacity < Self.maxBatches else { return false }
                grow()
            }
            (storage + batches * JobStack.batchSize).initialize(from: slots, count: JobStack.batchSize)
            batches += 1
            batchCount.store(batches, ordering: .relaxed)
            return true
        }
        if !kept { Self.release(slots, count: JobStack.batchSize) }
    }

    /// Doubles the storage (under the lock, copying up to 1 MB of pointers: four times per
    /// depot at most between trims).
    private func grow() {
        let larger = min(capacity * 2, Self.maxBatches)
        let moved = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: larger * JobStack.batchSize)
        moved.moveInitialize(from: storage, count: batches * JobStack.batchSize)
        storage.deallocate()
        storage = moved
        capacity = larger
    }

    /// Frees the batches above `keptBatches` and shrinks the storage back (the jobs are
    /// released after the lock is given back).
    func trimToKept() {
        let excess: (storage: UnsafeMutablePointer<UnsafeMutableRawPointer>, from: Int, to: Int)? = lock.withLock {
            guard capacity > Self.keptBatches else { return nil }
            let kept = min(batches, Self.keptBatches)
            let smaller = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: Self.keptBatches * JobStack.batchSize)
            smaller.initialize(from: storage, count: kept * JobStack.batchSize)
            let old = (storage, kept * JobStack.batchSize, batches * JobStack.batchSize)
            storage = smaller
            capacity = Self.keptBatches
            batches = kept
            batchCount.store(batches, ordering: .relaxed)
            return old
        }
        guard let excess else { return }
        Self.release(excess.storage + excess.from, count: excess.to - excess.from)
        excess.storage.deallocate()
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
        Self.release(storage, count: batches * JobStack.batchSize)
        storage.deallocate()
    }
}
