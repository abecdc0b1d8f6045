import Synchronization

/// The pool's shared FIFO for one priority band: jobs submitted from threads that are not
/// workers, and overflow from full worker rings.
///
/// Producers are wait-free (`JobList.push`); consumers take turns through a try-flag, so a
/// worker that finds the flag taken simply looks elsewhere instead of waiting.
final class InjectionQueue: @unchecked Sendable {
    private let list = JobList()
    private let consumerBusy = Atomic<Bool>(false)
    /// When the job at the head became the head (monotonic ns): a push onto the empty list
    /// or a pop that left jobs behind sets it. How long the band has waited to be served.
    private let headSince = Atomic<UInt64>(0)

    init() {}

    var isEmpty: Bool { list.isEmpty }

    func push(_ job: Job) {
        if list.push(job) { headSince.store(Clock.monotonicNanoseconds(), ordering: .relaxed) }
    }

    /// Whether the head job has waited at least `nanoseconds` (as of `now`).
    func headHasWaited(_ nanoseconds: UInt64, now: UInt64) -> Bool {
        let since = headSince.load(ordering: .relaxed)
        return !list.isEmpty && now >= since && now - since >= nanoseconds
    }

    /// Takes the oldest job and moves up to `batch` more into `ring` (the caller's own).
    func pop(movingUpTo batch: Int, into ring: LocalRunQueue?) -> Job? {
        if list.isEmpty { return nil }
        guard consumerBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return nil
        }
        let first = list.pop()
        if first != nil, !list.isEmpty { headSince.store(Clock.monotonicNanoseconds(), ordering: .relaxed) }
        if first != nil, let ring {
            var moved = 0
            while moved < batch, ring.count < Int(LocalRunQueue.capacity) / 2, let job = list.pop() {
                _ = ring.push(job)   // cannot fail: the ring is at most half full
                moved += 1
            }
        }
        consumerBusy.store(false, ordering: .releasing)
        return first
    }
}
