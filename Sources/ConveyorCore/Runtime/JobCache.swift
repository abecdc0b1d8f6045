import CConveyor

/// Recycled `ClosureJob`s, so that `async` makes no allocation of its own beyond the
/// closure context Swift creates (libdispatch keeps a per-thread cache of continuations
/// for the same reason: cross-thread `malloc`/`free` pairs are a large part of the cost
/// of a task).
///
/// Each thread keeps a short list. A thread that runs more jobs than it submits (a
/// worker) hands batches to a shared depot; a thread that submits more than it runs (a
/// producer) takes batches from it.
final class JobCache {
    private static let batchSize = 64
    private static let limit = 256

    private var head: ClosureJob?
    private var count = 0

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
            Unmanaged<JobCache>.fromOpaque(raw!).takeRetainedValue().drainToDepot()
        }
        return raw
    }

    /// A recycled job, or nil when none is at hand.
    @inline(__always)
    func take() -> ClosureJob? {
        if head == nil, !refill() { return nil }
        let job = head.unsafelyUnwrapped
        head = job.cacheNext
        job.cacheNext = nil
        count -= 1
        return job
    }

    /// Keeps a finished job for reuse.
    @inline(__always)
    func put(_ job: ClosureJob) {
        job.cacheNext = head
        head = job
        count += 1
        if count >= Self.limit { spill() }
    }

    private func refill() -> Bool {
        guard let (first, taken) = JobDepot.shared.takeBatch() else { return false }
        head = first
        count = taken
        return true
    }

    /// Moves one batch to the depot.
    private func spill() {
        var batch: ClosureJob? = nil
        for _ in 0..<Self.batchSize {
            let job = head.unsafelyUnwrapped
            head = job.cacheNext
            job.cacheNext = batch
            batch = job
        }
        count -= Self.batchSize
        JobDepot.shared.giveBatch(batch.unsafelyUnwrapped, count: Self.batchSize)
    }

    /// The thread is exiting: full batches go to the depot, the rest is freed.
    private func drainToDepot() {
        while count >= Self.batchSize { spill() }
        JobDepot.release(chain: head)
        head = nil
        count = 0
    }
}

/// The shared store of job batches between threads' caches.
final class JobDepot: @unchecked Sendable {
    static let shared = JobDepot()
    private static let maxBatches = 64

    private let lock = FutexLock()
    private var batches: [(ClosureJob, Int)] = []   // guarded by lock

    private init() { batches.reserveCapacity(Self.maxBatches) }

    func takeBatch() -> (ClosureJob, Int)? {
        lock.withLock { batches.popLast() }
    }

    func giveBatch(_ first: ClosureJob, count: Int) {
        let kept = lock.withLock { () -> Bool in
            guard batches.count < Self.maxBatches else { return false }
            batches.append((first, count))
            return true
        }
        if !kept { Self.release(chain: first) }
    }

    /// Frees a chain of jobs one by one (a long chain released at once would recurse).
    static func release(chain: ClosureJob?) {
        var job = chain
        while let current = job {
            job = current.cacheNext
            current.cacheNext = nil
        }
    }
}
