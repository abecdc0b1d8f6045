import CConveyor
import Synchronization

/// A counting semaphore: `wait()` takes one unit of the count and blocks while there is
/// none; `signal()` gives one back and wakes a waiter.
///
/// Uncontended calls are one atomic operation each, with no system call; blocked waiters
/// sleep on a futex. A waiter that times out leaves the count right even when a signal
/// races it.
public final class DispatchSemaphore: DispatchObject, @unchecked Sendable {
    /// Signed count: negative means that many threads are waiting (or about to).
    private let value: Atomic<Int>
    /// Wake-ups posted by `signal()` for waiters to take, one each.
    private let tokens = FutexWord(0)
    private let initialValue: Int

    /// Creates a semaphore with an initial count. A negative value traps.
    public init(value: Int) {
        precondition(value >= 0, "Conveyor: DispatchSemaphore created with a negative value (\(value))")
        self.value = Atomic(value)
        initialValue = value
        super.init()
    }

    deinit {
        let current = value.load(ordering: .acquiring)
        if current < initialValue {
            preconditionFailure("Conveyor: DispatchSemaphore released while in use (its count \(current) is below its initial value \(initialValue): a thread may still be waiting on it)")
        }
        tokens.deallocate()
    }

    /// Gives one unit back, waking a waiter if there is one. Returns 1 if a thread was
    /// woken, else 0.
    @discardableResult
    public func signal() -> Int {
        let before = value.add(1, ordering: .acquiringAndReleasing).oldValue
        if before >= 0 { return 0 }
        tokens.fetchAdd(1)
        tokens.wake(1)
        return 1
    }

    /// Takes one unit, waiting as long as it takes.
    public func wait() {
        if value.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 { return }
        _ = waitForToken(remaining: { nil })
    }

    /// Takes one unit, waiting until `timeout` at most.
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        if value.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 { return .success }
        return waitForToken(remaining: { timeout.nanosecondsRemaining() })
    }

    /// Takes one unit, waiting until the wall-clock `wallTimeout` at most.
    public func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult {
        if value.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 { return .success }
        return waitForToken(remaining: { wallTimeout.nanosecondsRemaining() })
    }

    /// The slow path: this thread already counted itself as a waiter.
    private func waitForToken(remaining: () -> Int64?) -> DispatchTimeoutResult {
        // A signal often follows closely: spin briefly before sleeping.
        for _ in 0..<100 {
            if takeToken() { return .success }
            cnv_cpu_relax()
        }
        return withBlockingHint {
            while true {
                if takeToken() { return .success }
                let left = remaining()
                if let left, left <= 0 {
                    if undoWait() { return .timedOut }
                    // A signal counted this thread: its token is coming; take it.
                    while !takeToken() { tokens.wait(expected: 0) }
                    return .success
                }
                tokens.wait(expected: 0, timeoutNanoseconds: left)
            }
        }
    }

    private func takeToken() -> Bool {
        var current = tokens.load()
        while current > 0 {
            let (done, seen) = tokens.compareExchange(expected: current, desired: current - 1)
            if done { return true }
            current = seen
        }
        return false
    }

    /// A timed-out waiter gives back its claim, unless a signal already counted it.
    private func undoWait() -> Bool {
        var current = value.load(ordering: .acquiring)
        while current < 0 {
            let (done, seen) = value.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if done { return true }
            current = seen
        }
        return false
    }

    /// The signed count now: negative means that many threads wait (a racy look, for tests).
    var currentValue: Int { value.load(ordering: .relaxed) }
}
