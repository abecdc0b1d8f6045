import CConveyor
import Synchronization

/// Recycled `ClosureJob`s (and the C API's `FunctionJob`s), so that `async` makes no
/// allocation of its own beyond the closure context Swift creates (libdispatch keeps a
/// per-thread cache of continuations for the same reason: cross-thread `malloc`/`free`
/// pairs are a large part of the cost of a task).
///
/// Each thread keeps a short list. A thread that runs more jobs than it submits (a
/// worker) hands batches to a shared depot; a thread that submits more than it runs (a
/// producer) takes batches from it.
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
        guard let job = closures.take() else { return nil }
        return unsafeDowncast(job, to: ClosureJob.self)
    }

    /// Keeps a finished closure job for reuse.
    @inline(__always)
    func put(_ job: ClosureJob) { closures.put(job) }

    /// A recycled function job (C API), or nil when none is at hand.
    @inline(__always)
    func takeFunctionJob() -> FunctionJob? {
        guard let job = functions.take() else { return nil }
        return unsafeDowncast(job, to: FunctionJob.self)
    }

    /// Keeps a finished function job for reuse.
    @inline(__always)
    func put(_ job: FunctionJob) { functions.put(job) }
}

/// One thread's list of recycled jobs of one kind, with the depot it trades batches with.
/// A class, not a struct held in `JobCache`: a mutating call on a class's stored struct is
/// an exclusive access that Swift checks at run time (`swift_beginAccess` on every take
/// and put), which a class's own stored properties here avoid.
final class JobStack {
    private static let batchSize = 64
    private static let limit = 256

    private let depot: JobDepot
    // Only the owning thread touches a stack (a thread-local cache), so the run-time
    // exclusivity checks on these would guard nothing.
    @exclusivity(unchecked) private var head: RecycledJob?
    @exclusivity(unchecked) private var count = 0

    init(depot: JobDepot) { self.depot = depot }

    @inline(__always)
    func take() -> RecycledJob? {
        if head == nil, !refill() { return nil }
        let job = head.unsafelyUnwrapped
        head = job.cacheNext
        job.cacheNext = nil
        count -= 1
        return job
    }

    @inline(__always)
    func put(_ job: RecycledJob) {
        job.cacheNext = head
        head = job
        count += 1
        if count >= Self.limit { spill() }
    }

    private func refill() -> Bool {
        guard let (first, taken) = depot.takeBatch() else { return false }
        head = first
        count = taken
        return true
    }

    /// Moves one batch to the depot.
    private func spill() {
        var batch: RecycledJob? = nil
        for _ in 0..<Self.batchSize {
            let job = head.unsafelyUnwrapped
            head = job.cacheNext
            job.cacheNext = batch
            batch = job
        }
        count -= Self.batchSize
        depot.giveBatch(batch.unsafelyUnwrapped, count: Self.batchSize)
    }

    /// The thread is exiting: full batches go to the depot, the rest is freed.
    func drainToDepot() {
        while count >= Self.batchSize { spill() }
        JobDepot.release(chain: head)
        head = nil
        count = 0
    }
}

/// The shared store of job batches between threads' caches (one per job kind).
final class JobDepot: @unchecked Sendable {
    static let closures = JobDepot()
    static let functions = JobDepot()
    private static let maxBatches = 64

    private let lock = FutexLock()
    private var batches: [(RecycledJob, Int)] = []   // guarded by lock
    /// `batches.count`, written under the lock, read without it (see `takeBatch`).
    private let batchCount = Atomic<Int>(0)

    private init() { batches.reserveCapacity(Self.maxBatches) }

    func takeBatch() -> (RecycledJob, Int)? {
        // A producer whose cache ran dry asks here on every submission; while the depot is
        // empty, the hint answers without the lock (a locked CAS per submission showed in
        // profiles of dispatch_async_f bursts). The hint is written under the lock; reading
        // a stale zero only costs one allocation, never a job: nothing waits on it.
        if batchCount.load(ordering: .relaxed) == 0 { return nil }
        return lock.withLock {
            let batch = batches.popLast()
            batchCount.store(batches.count, ordering: .relaxed)
            return batch
        }
    }

    func giveBatch(_ first: RecycledJob, count: Int) {
        let kept = lock.withLock { () -> Bool in
            guard batches.count < Self.maxBatches else { return false }
            batches.append((first, count))
            batchCount.store(batches.count, ordering: .relaxed)
            return true
        }
        if !kept { Self.release(chain: first) }
    }

    /// Frees a chain of jobs one by one (a long chain released at once would recurse).
    static func release(chain: RecycledJob?) {
        var job = chain
        while let current = job {
            job = current.cacheNext
            current.cacheNext = nil
        }
    }
}
