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

#if canImport(Glibc)
import Glibc
#endif

/// Due timers fired by a pool worker that is spinning for work anyway.
///
/// Through the timerfd a timer costs an interrupt, the event thread's wake-up and then a
/// worker's, often on the other CPU. On this project's 2-vCPU machines the interrupt and
/// the wake-up stall the CPU they land on for 15-20 µs, which is why a worker spinning
/// next to the event thread saw due timers late. So a searching worker that finds the
/// next fire time a few microseconds away *watches* it: it disarms the timerfd (or, a
/// worker the kernel has preempted lately, moves it to a backstop a little later), keeps
/// spinning until the time comes, takes the due timers and runs their callbacks itself;
/// the job a callback submits lands in that worker's own slot and runs next. No
/// interrupt, no wake-up (timer-lateness p50 45 -> 7-12 µs, p99 137 -> 24-190 µs against
/// libdispatch's 65-287 µs in the same runs; wake-ups per 1,000 timers 1,955 -> 6-120).
///
/// Only timers added with `poolMayFire` (asyncAfter, task sleeps, timer sources) are fired
/// this way: their callbacks only submit work. Others stay with the event thread: a
/// watch that finds one due ends and lets the timerfd ring at once.
extension EventLoop {
    /// How far ahead of the next fire time a searching worker starts watching it: the
    /// longest it spins beyond its usual search for a timer.
    static let watchWindowNanoseconds: UInt64 = 25_000

    /// How late the timerfd rings for a watched timer that its watcher has not fired
    /// (`TimerQueue.beginWatch`): past the watcher's own give-up point (the window after
    /// the fire time), so that a watcher that keeps its CPU never loses the race, and far
    /// below a time slice, what a watcher that loses its CPU cost before.
    static let watchBackstopNanoseconds: UInt64 = 100_000

    /// Outcome of `fireDueTimersFromPool`.
    enum PoolFiring {
        /// Another thread runs callbacks now: the event thread (which takes due timers when
        /// its timerfd rang) or another worker; nothing was taken.
        case busy
        /// Nothing was due and firable; any watch ended and the timerfd is armed again.
        case nothingDue
        /// Callbacks ran on the calling thread; any watch ended.
        case fired
    }

    /// Takes the monotonic timers that are due and may run on the pool, and runs their
    /// callbacks on the calling thread.
    ///
    /// Pairing: `runnerLock` makes this thread the only callback runner (the event thread
    /// takes it for each round of events), and `poolRunner` is set under `lock` in the
    /// hold that takes the timers, so `completionTicket` sees a callback on this thread as
    /// "running here" (a callback that cancels its own timer does not wait for itself)
    /// and every other thread waits for it as it would for the event thread.
    func fireDueTimersFromPool() -> PoolFiring {
        guard runnerLock.tryLock() else { return .busy }
        let queue = timerQueues[Int(TimerClock.monotonic.rawValue)]
        lock.lock()
        let now = queue.clock.now()
        while poolBatch.count < Self.batchLimit,
              let (slot, generation) = queue.heap.popExpired(now: now, poolFirableOnly: true) {
            poolBatch.append(.timer(TimerHandle(clock: queue.clock, slot: slot, generation: generation)))
        }
        // What was due has been taken (or is for the event thread): arm the timerfd for
        // what is left, as the event thread does after it rang. A timer that must run on
        // the event thread and is already due makes it ring at once.
        if queue.isWatched || queue.armedAt.map({ $0 <= now }) == true { queue.rearmAfterExpiry() }
        let fired = !poolBatch.isEmpty
        if fired {
            poolRunner = pthread_self()
            poolFiredTimers.wrappingAdd(UInt64(poolBatch.count), ordering: .relaxed)
        }
        lock.unlock()
        if fired { runBatch(&poolBatch, endingPoolRun: true) }
        runnerLock.unlock()
        return fired ? .fired : .nothingDue
    }

    /// Starts watching the next monotonic fire time if it is at most
    /// `watchWindowNanoseconds` after `now` and nobody watches it yet; returns whether the
    /// caller now watches. With `backstop`, the timerfd still rings
    /// `watchBackstopNanoseconds` after that time if the watcher has not fired by then;
    /// without, it is disarmed. A watcher must end with `fireDueTimersFromPool` (not
    /// `.busy`) or `endTimerWatch` before it stops spinning.
    func beginTimerWatch(now: UInt64, backstop: Bool) -> Bool {
        lock.withLock {
            timerQueues[Int(TimerClock.monotonic.rawValue)].beginWatch(
                now: now, window: Self.watchWindowNanoseconds, backstop: backstop ? Self.watchBackstopNanoseconds : nil)
        }
    }

    /// Ends a watch that did not fire: the timerfd is armed again. Harmless when the
    /// watch already ended.
    func endTimerWatch() {
        lock.withLock { timerQueues[Int(TimerClock.monotonic.rawValue)].endWatch() }
    }
}
