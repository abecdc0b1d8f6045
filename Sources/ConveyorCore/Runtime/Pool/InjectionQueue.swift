import Synchronization

/// The pool's shared FIFO for one priority band: jobs submitted from threads that are not
/// workers, and overflow from full worker rings.
///
/// Producers are wait-free (`JobList.push`); consumers take turns through a try-flag, so a
/// worker that finds the flag taken simply looks elsewhere instead of waiting.
final class InjectionQueue: @unchecked Sendable {
    private let list = JobList()
    private let consumerBusy = Atomic<Bool>(false)

    init() {}

    var isEmpty: Bool { list.isEmpty }

    func push(_ job: Job) {
        _ = list.push(job)
    }

    /// Takes the oldest job and moves up to `batch` more into `ring` (the caller's own).
    func pop(movingUpTo batch: Int, into ring: LocalRunQueue?) -> Job? {
        if list.isEmpty { return nil }
        guard consumerBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return nil
        }
        let first = list.pop()
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
