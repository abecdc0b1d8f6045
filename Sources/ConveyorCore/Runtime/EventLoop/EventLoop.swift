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
#if canImport(Glibc)
import Glibc
#endif

/// The runtime's event thread: one dedicated thread ("conveyor.events") sleeping in
/// `epoll_wait` on an eventfd (to wake it), one timerfd per clock, and the fds of
/// dispatch sources. Timer callbacks and fd handlers run on that thread, one at a time
/// (or, for timers added with `poolMayFire`, on a spinning pool worker, still one at a
/// time: `runnerLock`), and must be short — the layers above only use them to submit
/// work to a queue.
///
/// Threading: every operation may be called from any thread, including from a callback
/// on the event thread itself (the lock is never held while a callback runs). State is
/// guarded by a `FutexLock`. An idle loop costs nothing: with no timer armed and no fd
/// ready the thread sleeps in `epoll_wait` with no timeout.
///
/// Priority: the thread asks for `eventThreadNice` (below the default 0), as libdispatch's
/// manager thread runs at the user-interactive QoS; see there.
///
/// Removal is synchronous: when `cancelTimer` or `unregister` returns, the callback is
/// not running and will not run again — except when called from that very callback,
/// which then simply finishes. This is what lets a source's cancel handler close its fd.
final class EventLoop: @unchecked Sendable {
    /// The process's event loop; created, and its thread started, on first use.
    static let shared = EventLoop(name: "conveyor.events", publishesDueHint: true)

    /// The next instant (ns) someone fires the shared loop's monotonic timers at: the
    /// timerfd's, or while a worker watches, the watched fire time; `.max` when nobody
    /// will. A pool worker that searches for work reads it to fire due timers itself (see
    /// `fireDueTimersFromPool`).
    static let monotonicDueHint = Atomic<UInt64>(.max)

    /// Callbacks taken from the heap per lock hold (bounds the time other threads wait).
    static let batchLimit = 256
    private static let wakeKey: UInt64 = 0
    /// Keys 1 and 2 are the timerfds (1 + `TimerClock.rawValue`); fds use keys ≥ 2³².
    private static let firstTimerKey: UInt64 = 1

    let name: String
    let lock = FutexLock()
    let epollFD: Int32
    /// Written to wake the event thread (used to stop a private loop).
    let wakeFD: Int32
    /// Indexed by `TimerClock.rawValue`.
    let timerQueues: [TimerQueue]

    // MARK: guarded by `lock`

    var registrations: [RegistrationID: Registration] = [:]
    var descriptors: [Int32: DescriptorEntry] = [:]
    var nextRegistration: UInt64 = 1
    var nextDescriptorSerial: UInt32 = 1
    /// The callback running now, on the event thread or a pool worker (set before it
    /// starts, cleared after).
    var running: RunningCallback = .none
    /// Threads sleeping in `waitForCompletion`.
    var completionWaiters = 0
    private var eventThread: pthread_t?
    /// The pool worker running timer callbacks now (`fireDueTimersFromPool`), if any.
    var poolRunner: pthread_t?
    private var isStopping = false

    /// Held by whichever thread takes and runs callbacks: the event thread for each round
    /// of events, or a searching pool worker firing due timers. One runner at a time keeps
    /// `running` a single callback; the lock is never held while waiting for anything but
    /// another runner's short batch.
    let runnerLock = FutexLock()
    /// The batch `fireDueTimersFromPool` fills and runs (guarded by `runnerLock`).
    var poolBatch: [PendingCallback] = []

    // MARK: lock-free

    /// Bumped, and woken, after a callback that some thread waits on has returned.
    let completions = FutexWord(0)
    /// Tests only (private loops): runs on the event thread between a callback's end and
    /// the wake-up of the threads waiting for it. Set before the callbacks it watches.
    var beforeCompletionWake: (() -> Void)?
    /// How many times `epoll_wait` returned (for tests: an idle loop does not move it).
    let loopIterations = Atomic<UInt64>(0)
    /// How many timerfd wake-ups fired timers; a callback reading it sees its own wake-up's
    /// number, so tests can count how many wake-ups a set of timers took.
    let timerWakeUps = Atomic<UInt64>(0)
    /// How many timers pool workers took and fired (`fireDueTimersFromPool`), for tests.
    let poolFiredTimers = Atomic<UInt64>(0)

    /// Makes a loop with its own thread. Use `shared`; private loops are for tests and
    /// must be stopped with `shutdown()`.
    init(name: String, publishesDueHint: Bool = false) {
        self.name = name
        epollFD = SystemCall.check(cnv_epoll_create(), "epoll_create1")
        wakeFD = SystemCall.check(cnv_eventfd(0, 1), "eventfd")
        timerQueues = TimerClock.allCases.map { clock in
            TimerQueue(clock: clock, fd: SystemCall.check(cnv_timerfd_create(clock == .wall ? 1 : 0), "timerfd_create"),
                       publishesDueHint: publishesDueHint && clock == .monotonic)
        }
        let input = EpollEvents.input.rawValue
        SystemCall.check(cnv_epoll_ctl(epollFD, 1, wakeFD, input, Self.wakeKey), "epoll_ctl")
        for queue in timerQueues {
            let key = Self.firstTimerKey + UInt64(queue.clock.rawValue)
            SystemCall.check(cnv_epoll_ctl(epollFD, 1, queue.fd, input, key), "epoll_ctl")
        }
        startThread()
    }

    deinit {
        for queue in timerQueues { close(queue.fd) }
        close(wakeFD)
        close(epollFD)
        completions.deallocate()
    }

    /// Asks a private loop's thread to exit after its current iteration. Pending timers
    /// never fire; the loop must not be used afterwards.
    func shutdown() {
        ensure(self !== EventLoop.shared, "Conveyor: the shared event loop cannot be shut down")
        lock.withLock { isStopping = true }
        SystemCall.check(Int32(cnv_eventfd_signal(wakeFD)), "eventfd write")
    }

    /// The event thread's `nice` value, where the process may lower it (CAP_SYS_NICE, or an
    /// RLIMIT_NICE that allows it; refused, the thread stays at 0): -4, libdispatch's value
    /// for the user-interactive QoS, at which its manager thread (the one that fires its
    /// timers and watches its descriptors) runs on Linux. On a busy machine every timer
    /// and source event waits for this thread to get a CPU; at the default value the
    /// kernel left it behind threads burning CPU, and later timers fell due meanwhile
    /// (timers 50 µs apart beside two such threads, lateness p50 ratio to libdispatch
    /// 0.25-0.43 at 0, 0.46-0.56 at -4, in alternating runs). Its callbacks only submit
    /// work, so the value gives no user code more CPU; pool threads it starts set their
    /// own value first (`Worker.startOnThisThread`).
    static let eventThreadNice = QoSBand.userInteractive.niceValue

    /// The thread keeps the loop alive (a retained reference through the C argument).
    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = cnv_thread_start({ argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            return nil
        }, context, 0)
        if started != 0 {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            SystemCall.check(-1, "pthread_create (event thread)")
        }
    }

    /// Whether the event thread has named itself and set its nice value (it does both
    /// before it records itself). A loop's timers can fire before that, by a pool worker
    /// (`fireDueTimersFromPool`), so a test that looks at the thread waits for this.
    var eventThreadIsSetUp: Bool { lock.withLock { eventThread != nil } }

    /// Whether the caller is this loop's event thread. Call with the lock held.
    func isEventThreadLocked() -> Bool {
        guard let thread = eventThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Whether the caller is the thread running callbacks now: a pool worker inside
    /// `fireDueTimersFromPool`, else the event thread. Call with the lock held.
    func isCallbackThreadLocked() -> Bool {
        if let runner = poolRunner { return pthread_equal(runner, pthread_self()) != 0 }
        return isEventThreadLocked()
    }

    // MARK: the event thread

    private func run() {
        ThreadInfo.setName(name)
        ThreadInfo.setNice(Self.eventThreadNice)
        lock.withLock { eventThread = pthread_self() }
        let capacity = 64
        var readyEvents = [UInt32](repeating: 0, count: capacity)
        var readyKeys = [UInt64](repeating: 0, count: capacity)
        var batch: [PendingCallback] = []
        batch.reserveCapacity(Self.batchLimit)

        while true {
            let count = readyEvents.withUnsafeMutableBufferPointer { events in
                readyKeys.withUnsafeMutableBufferPointer { keys in
                    cnv_epoll_wait(epollFD, events.baseAddress, keys.baseAddress, Int32(capacity), -1)
                }
            }
            if count < 0 {
                if SystemCall.errno == EINTR { continue }
                SystemCall.check(count, "epoll_wait")
            }
            loopIterations.wrappingAdd(1, ordering: .relaxed)
            runnerLock.lock()

            var expired = (monotonic: false, wall: false)
            var woken = false
            var descriptorEvents = 0
            for index in 0..<Int(count) {
                switch readyKeys[index] {
                case Self.wakeKey:
                    _ = cnv_eventfd_drain(wakeFD)
                    woken = true
                case Self.firstTimerKey + UInt64(TimerClock.monotonic.rawValue):
                    _ = cnv_eventfd_drain(timerQueues[Int(TimerClock.monotonic.rawValue)].fd)
                    expired.monotonic = true
                case Self.firstTimerKey + UInt64(TimerClock.wall.rawValue):
                    _ = cnv_eventfd_drain(timerQueues[Int(TimerClock.wall.rawValue)].fd)
                    expired.wall = true
                default:
                    descriptorEvents += 1
                }
            }

            if expired.monotonic { fireTimers(timerQueues[Int(TimerClock.monotonic.rawValue)], &batch) }
            if expired.wall { fireTimers(timerQueues[Int(TimerClock.wall.rawValue)], &batch) }
            if descriptorEvents > 0 {
                lock.lock()
                for index in 0..<Int(count) where readyKeys[index] > Self.firstTimerKey + 1 {
                    collectDescriptorEvent(key: readyKeys[index], events: EpollEvents(rawValue: readyEvents[index]), into: &batch)
                }
                lock.unlock()
                runBatch(&batch)
            }
            runnerLock.unlock()
            if woken, lock.withLock({ isStopping }) { break }
        }
        // Stopped: drop every callback (they may capture the loop) outside the lock.
        lock.lock()
        let heaps = timerQueues.map { queue in
            defer { queue.heap = TimerHeap() }
            return queue.heap
        }
        let handlers = registrations
        registrations = [:]
        descriptors = [:]
        lock.unlock()
        withExtendedLifetime((heaps, handlers)) {}
    }

    /// The timerfd of `queue` rang: fire every timer whose deadline has passed (re-reading
    /// the clock, so a timer never fires early even if a timerfd rings early), then arm
    /// the timerfd for the next window end.
    private func fireTimers(_ queue: TimerQueue, _ batch: inout [PendingCallback]) {
        timerWakeUps.wrappingAdd(1, ordering: .relaxed)
        var isFull: Bool
        repeat {
            lock.lock()
            let now = queue.clock.now()
            while batch.count < Self.batchLimit, let (slot, generation) = queue.heap.popExpired(now: now) {
                batch.append(.timer(TimerHandle(clock: queue.clock, slot: slot, generation: generation)))
            }
            isFull = batch.count == Self.batchLimit
            if isFull { queue.markExpired() } else { queue.rearmAfterExpiry() }
            lock.unlock()
            runBatch(&batch)
        } while isFull
    }

    /// Runs each callback of `batch` unless it was cancelled meanwhile, marking it as
    /// running (under the lock) so a thread that removes it can wait for it to return.
    /// With `endingPoolRun`, also gives the callback-thread role back to the event thread
    /// in the lock hold that finishes the last callback.
    func runBatch(_ batch: inout [PendingCallback], endingPoolRun: Bool = false) {
        guard !batch.isEmpty else { return }
        for item in batch {
            lock.lock()
            let finished = finishRunning()
            let claimed = claim(item)
            lock.unlock()
            if finished.wakeWaiters { signalCompletion() }
            withExtendedLifetime(finished.dropped) {}
            switch claimed {
            case .none: continue
            case .timer(let callback, let handle)?: callback(handle)
            case .descriptor(let handler, let events)?: handler(events)
            }
        }
        lock.lock()
        let finished = finishRunning()
        if endingPoolRun { poolRunner = nil }
        lock.unlock()
        if finished.wakeWaiters { signalCompletion() }
        withExtendedLifetime(finished.dropped) {}
        batch.removeAll(keepingCapacity: true)
    }

    /// Takes a pending callback for running, or nil if it was removed. Lock held.
    private func claim(_ item: PendingCallback) -> ClaimedCallback? {
        switch item {
        case .timer(let handle):
            let queue = timerQueues[Int(handle.clock.rawValue)]
            guard let callback = queue.heap.claim(slot: handle.slot, generation: handle.generation) else { return nil }
            running = .timer(handle)
            return .timer(callback, handle)
        case .descriptor(let id, let events):
            guard let (handler, delivered) = claimDescriptor(id, events: events) else { return nil }
            running = .descriptor(id)
            return .descriptor(handler, delivered)
        }
    }

    /// Clears `running` after a callback returned; frees a timer that fired and was not
    /// rescheduled. Returns whether waiters must be woken, and the freed callback so it is
    /// released after unlocking. Lock held.
    private func finishRunning() -> (wakeWaiters: Bool, dropped: TimerCallback?) {
        var dropped: TimerCallback?
        switch running {
        case .none:
            return (false, nil)
        case .timer(let handle):
            let queue = timerQueues[Int(handle.clock.rawValue)]
            if queue.heap.isSpent(slot: handle.slot, generation: handle.generation) {
                dropped = queue.heap.free(handle.slot)
            }
        case .descriptor:
            break
        }
        running = .none
        // Invariant (issue 11): the completion count moves under the lock, in the same
        // hold that clears `running`. A waiter takes its ticket under the lock while its
        // callback is `running`, so every bump it can see comes after that callback
        // returned. Bumped after unlocking (as before), the bump of the previous callback
        // could land after the next one was claimed and a waiter for that one ticketed:
        // `unregister` then returned while its callback still ran (and its fd was closed
        // under it).
        let wake = completionWaiters > 0
        if wake { completions.fetchAdd(1) }
        return (wake, dropped)
    }

    // MARK: waiting for a running callback

    /// If `target` is running (on the event thread or a worker firing timers) and the
    /// caller is another thread,
    /// registers the caller as a waiter and returns the completion count to wait on.
    /// Lock held.
    func completionTicket(ifRunning target: RunningCallback) -> UInt32? {
        guard running == target, !isCallbackThreadLocked() else { return nil }
        completionWaiters += 1
        return completions.load()
    }

    /// Sleeps until the callback that was running when `ticket` was taken has returned.
    func waitForCompletion(_ ticket: UInt32) {
        while completions.load() == ticket {
            completions.wait(expected: ticket)
        }
        lock.withLock { completionWaiters -= 1 }
    }

    /// Wakes the threads waiting for a callback (the count was bumped under the lock).
    private func signalCompletion() {
        beforeCompletionWake?()
        completions.wakeAll()
    }
}

/// A callback found due by the event thread, not yet started.
enum PendingCallback {
    case timer(TimerHandle)
    case descriptor(RegistrationID, EpollEvents)
}

/// Which callback the event thread is running.
enum RunningCallback: Equatable {
    case none
    case timer(TimerHandle)
    case descriptor(RegistrationID)
}

/// A callback taken for running, with its argument.
enum ClaimedCallback {
    case timer(TimerCallback, TimerHandle)
    case descriptor(DescriptorHandler, EpollEvents)
}
