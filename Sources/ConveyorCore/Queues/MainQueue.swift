import CConveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs the main queue on the main thread: `dispatchMain()` sleeps on a futex until the
/// queue has work; a host event loop can instead watch `mainQueueEventDescriptor` (an
/// eventfd that becomes readable when the queue has work) and call `drainMainQueue()`.
final class MainQueueRunner: @unchecked Sendable {
    static let shared = MainQueueRunner()

    let queue = DispatchQueue(specialLabel: "com.apple.main-thread", kind: .main, band: .default)
    /// Bumped on every signal; `dispatchMain()` sleeps on it.
    private let signals = FutexWord(0)
    /// Whether a drain was scheduled and not yet run.
    private let pending = Atomic<Bool>(false)
    /// The eventfd for host loops, created on first request (-1 until then).
    private let eventDescriptor = Atomic<Int32>(-1)

    private init() {}

    /// The main queue has work: wake the main thread.
    func signal() {
        pending.store(true, ordering: .releasing)
        signals.fetchAdd(1)
        signals.wake(1)
        let fd = eventDescriptor.load(ordering: .acquiring)
        if fd >= 0 { _ = cnv_eventfd_signal(fd) }
    }

    /// Runs the scheduled drain, if any. Main thread only.
    func drainIfScheduled() {
        if pending.exchange(false, ordering: .acquiringAndReleasing) {
            queue.drainScheduled()
        }
    }

    /// Serves the main queue forever.
    func runForever() -> Never {
        while true {
            let seen = signals.load()
            if pending.load(ordering: .acquiring) {
                drainIfScheduled()
            } else {
                withBlockingHint { _ = signals.wait(expected: seen) }
            }
        }
    }

    /// The eventfd a host loop can poll.
    func hostDescriptor() -> Int32 {
        let existing = eventDescriptor.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        let fd = SystemCall.check(cnv_eventfd(0, 1), "eventfd for the main queue")
        let (stored, winner) = eventDescriptor.compareExchange(expected: -1, desired: fd, ordering: .acquiringAndReleasing)
        if !stored {
            _ = close(fd)
            return winner
        }
        if pending.load(ordering: .acquiring) { _ = cnv_eventfd_signal(fd) }
        return fd
    }
}

/// Serves the main queue on the main thread and never returns. Call it at the end of a
/// program's main code; a program ends by calling `exit` from some task.
/// Calling it off the main thread traps.
public func dispatchMain() -> Never {
    precondition(ThreadInfo.isMainThread, "Conveyor: dispatchMain() must be called on the main thread")
    MainQueueRunner.shared.runForever()
}

extension DispatchQueue {
    /// A file descriptor that becomes readable when the main queue has work, for programs
    /// whose main thread runs its own event loop (epoll, poll) instead of `dispatchMain()`.
    /// When it is readable, call `drainMainQueue()` on the main thread.
    public static var mainQueueEventDescriptor: Int32 {
        MainQueueRunner.shared.hostDescriptor()
    }

    /// Runs the main queue's pending tasks on the calling thread, which must be the main
    /// thread; returns when the queue has nothing more to start now (or after a batch, if
    /// work keeps coming: the descriptor is then readable again).
    public static func drainMainQueue() {
        precondition(ThreadInfo.isMainThread, "Conveyor: drainMainQueue() must be called on the main thread")
        let runner = MainQueueRunner.shared
        let fd = runner.hostDescriptor()
        _ = cnv_eventfd_drain(fd)
        runner.drainIfScheduled()
    }
}
