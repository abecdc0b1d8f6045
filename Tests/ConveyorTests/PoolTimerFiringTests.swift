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
import Testing
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif

/// Timers fired by a pool worker that watches the next fire time (EventLoop+PoolFiring).
/// The private-loop tests drive a watch by hand, with a backstop (a minute unless a test
/// says otherwise) far enough away that the event thread could only take a watched timer
/// if the watch failed to move its timerfd.
@Suite struct PoolTimerFiringTests {
    private static let monotonic = Int(TimerClock.monotonic.rawValue)

    private func armedAt(_ loop: EventLoop) -> UInt64? {
        loop.lock.withLock { loop.timerQueues[Self.monotonic].armedAt }
    }

    private func isWatched(_ loop: EventLoop) -> Bool {
        loop.lock.withLock { loop.timerQueues[Self.monotonic].isWatched }
    }

    private static let minute: UInt64 = 60_000_000_000

    private func beginWatch(_ loop: EventLoop, window: UInt64 = minute, backstop: UInt64? = minute) -> Bool {
        let now = Clock.monotonicNanoseconds()
        return loop.lock.withLock {
            loop.timerQueues[Self.monotonic].beginWatch(now: now, window: window, backstop: backstop)
        }
    }

    /// Spins until the monotonic clock has passed `instant` (a deadline, not a sleep).
    private func waitForClock(_ instant: UInt64) -> Bool {
        waitUntil(seconds: 30) { Clock.monotonicNanoseconds() >= instant }
    }

    /// A watch with a backstop moves the timerfd to the backstop after the watched time; a
    /// timer added meanwhile, earlier, moves it to its own backstop (the watcher sees it
    /// through the hint); ending the watch arms the timerfd for the earliest timer. A watch
    /// without one disarms it. Invariant: every timer is covered by the timerfd or a watch.
    @Test func aWatchCoversEveryTimerAndItsEndArmsTheTimerfdAgain() {
        let loop = EventLoop(name: "test.watch")
        defer { loop.shutdown() }
        let now = Clock.monotonicNanoseconds()
        let backstop: UInt64 = 30_000_000_000
        let later = loop.addTimer(clock: .monotonic, deadline: now + 20_000_000_000, leeway: 0, poolMayFire: true) { _ in }
        #expect(armedAt(loop) == now + 20_000_000_000)
        #expect(beginWatch(loop, backstop: backstop))
        #expect(armedAt(loop) == now + 20_000_000_000 + backstop)
        #expect(isWatched(loop))
        #expect(!beginWatch(loop), "a second watcher must not take over a watch")
        let earlier = loop.addTimer(clock: .monotonic, deadline: now + 10_000_000_000, leeway: 0, poolMayFire: true) { _ in }
        #expect(armedAt(loop) == now + 10_000_000_000 + backstop)
        loop.lock.withLock { loop.timerQueues[Self.monotonic].endWatch() }
        #expect(!isWatched(loop))
        #expect(armedAt(loop) == now + 10_000_000_000)
        // Without a backstop the watch disarms the timerfd, and an earlier timer leaves it
        // disarmed (the watcher sees it through the hint).
        #expect(beginWatch(loop, backstop: nil))
        #expect(armedAt(loop) == nil)
        let earliest = loop.addTimer(clock: .monotonic, deadline: now + 5_000_000_000, leeway: 0, poolMayFire: true) { _ in }
        #expect(armedAt(loop) == nil)
        loop.lock.withLock { loop.timerQueues[Self.monotonic].endWatch() }
        #expect(armedAt(loop) == now + 5_000_000_000)
        #expect(loop.cancelTimer(earliest))
        #expect(loop.cancelTimer(earlier))
        #expect(loop.cancelTimer(later))
    }

    /// Nothing to watch: no timer, or the next one further away than the window.
    @Test func aWatchStartsOnlyForATimerInsideItsWindow() {
        let loop = EventLoop(name: "test.window")
        defer { loop.shutdown() }
        #expect(!beginWatch(loop))
        let handle = loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 20_000_000_000,
                                   leeway: 0, poolMayFire: true) { _ in }
        #expect(!beginWatch(loop, window: 1_000_000))
        #expect(armedAt(loop) != nil)
        #expect(loop.cancelTimer(handle))
    }

    /// A watcher that never fires (its thread lost its CPU) leaves the timer to the
    /// timerfd's backstop: the event thread fires it, never early, and the watch ends.
    @Test func aWatchedTimerWhoseWatcherNeverFiresRingsAtTheBackstop() {
        let loop = EventLoop(name: "test.backstop")
        defer { loop.shutdown() }
        let due = Clock.monotonicNanoseconds() + 1_000_000_000   // a stall before the watch must not let it fire first
        let firedAt = TestLog<UInt64>()
        let firedOn = TestLog<pthread_t>()
        let fired = DispatchSemaphore(value: 0)
        loop.addTimer(clock: .monotonic, deadline: due, leeway: 0, poolMayFire: true) { _ in
            firedAt.append(Clock.monotonicNanoseconds())
            firedOn.append(pthread_self())
            fired.signal()
        }
        #expect(beginWatch(loop, backstop: 5_000_000))
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(firedAt.values.allSatisfy { $0 >= due })
        #expect(firedOn.values.allSatisfy { pthread_equal($0, pthread_self()) == 0 })
        #expect(waitUntil { !isWatched(loop) })
    }

    /// A watch with a backstop that its watcher fires, leaving no timer: the backstop is
    /// disarmed, so the event thread does not wake for nothing (a review's finding).
    @Test func aFiredBackstopWatchLeavesNoRingBehind() {
        let loop = EventLoop(name: "test.fired-backstop")
        defer { loop.shutdown() }
        let due = Clock.monotonicNanoseconds() + 1_000_000_000   // a stall before the watch must not let it fire first
        loop.addTimer(clock: .monotonic, deadline: due, leeway: 0, poolMayFire: true) { _ in }
        #expect(beginWatch(loop, backstop: 20_000_000))
        #expect(waitForClock(due))
        #expect(loop.fireDueTimersFromPool() == .fired)
        #expect(armedAt(loop) == nil)
        let wakeUps = loop.loopIterations.load(ordering: .relaxed)
        // Past the backstop: a timerfd left armed would have rung by now.
        #expect(waitForClock(due + 100_000_000))
        #expect(loop.loopIterations.load(ordering: .relaxed) == wakeUps, "the backstop rang after the watcher fired")
    }

    /// The watcher runs a due pool timer's callback on its own thread, never early; a due
    /// timer that must run on the event thread is left to it, and the timerfd is armed so
    /// that it rings for it at once.
    @Test func theWatcherFiresPoolTimersAndLeavesTheOthersToTheEventThread() {
        let loop = EventLoop(name: "test.pool-fire")
        defer { loop.shutdown() }
        let poolDeadline = Clock.monotonicNanoseconds() + 1_000_000_000   // a stall before the watch must not let the event thread fire it
        let eventDeadline = poolDeadline + 1_000_000
        let poolFiredOn = TestLog<pthread_t>()
        let poolFiredAt = TestLog<UInt64>()
        let eventFiredOn = TestLog<pthread_t>()
        let eventFired = DispatchSemaphore(value: 0)
        loop.addTimer(clock: .monotonic, deadline: poolDeadline, leeway: 0, poolMayFire: true) { _ in
            poolFiredAt.append(Clock.monotonicNanoseconds())
            poolFiredOn.append(pthread_self())
        }
        loop.addTimer(clock: .monotonic, deadline: eventDeadline, leeway: 0) { _ in
            eventFiredOn.append(pthread_self())
            eventFired.signal()
        }
        #expect(beginWatch(loop))
        #expect(waitForClock(eventDeadline))
        #expect(poolFiredOn.count == 0, "the event thread fired a watched timer")
        let before = loop.poolFiredTimers.load(ordering: .relaxed)
        #expect(loop.fireDueTimersFromPool() == .fired)
        #expect(loop.poolFiredTimers.load(ordering: .relaxed) == before + 1)
        #expect(poolFiredOn.values.count == 1)
        #expect(poolFiredOn.values.allSatisfy { pthread_equal($0, pthread_self()) != 0 })
        #expect(poolFiredAt.values.allSatisfy { $0 >= poolDeadline })
        #expect(!isWatched(loop))
        #expect(eventFired.wait(timeout: deadline()) == .success)
        #expect(eventFiredOn.values.count == 1)
        #expect(eventFiredOn.values.allSatisfy { pthread_equal($0, pthread_self()) == 0 })
        // The event thread signalled from inside its callback and holds the runner lock
        // until its round ends: `.busy` (nothing taken) until then (seen under
        // AddressSanitizer).
        var afterEventRound = EventLoop.PoolFiring.busy
        #expect(waitUntil {
            afterEventRound = loop.fireDueTimersFromPool()
            return afterEventRound != .busy
        })
        #expect(afterEventRound == .nothingDue)
    }

    /// A callback run by a worker may cancel its own timer without waiting for itself, and
    /// a thread cancelling it meanwhile waits until it has returned (removal stays
    /// synchronous whichever thread runs callbacks).
    @Test func removalWaitsForACallbackRunningOnAWorker() {
        let loop = EventLoop(name: "test.pool-removal")
        defer { loop.shutdown() }
        let fireAt = Clock.monotonicNanoseconds() + 1_000_000_000   // a stall before the watch must not let the event thread fire it
        let started = DispatchSemaphore(value: 0)
        let release = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let selfCancelReturned = Atomic<Bool>(false)
        let cancelSawFinished = TestLog<Bool>()
        let cancelled = DispatchSemaphore(value: 0)
        let fired = DispatchSemaphore(value: 0)
        let handle = loop.addTimer(clock: .monotonic, deadline: fireAt, leeway: 0, poolMayFire: true) { own in
            _ = loop.cancelTimer(own)   // from its own callback: must not wait for itself
            selfCancelReturned.store(true, ordering: .releasing)
            started.signal()
            _ = waitUntil(seconds: 30) { release.load(ordering: .acquiring) }
            finished.store(true, ordering: .releasing)
        }
        #expect(beginWatch(loop))
        #expect(waitForClock(fireAt))
        let outcome = TestLog<EventLoop.PoolFiring>()
        startThread {
            outcome.append(loop.fireDueTimersFromPool())
            fired.signal()
        }
        #expect(started.wait(timeout: deadline()) == .success)
        let selfCancelDidReturn = selfCancelReturned.load(ordering: .acquiring)
        #expect(selfCancelDidReturn)
        startThread {
            _ = loop.cancelTimer(handle)
            cancelSawFinished.append(finished.load(ordering: .acquiring))
            cancelled.signal()
        }
        #expect(waitUntil(seconds: 30) { loop.lock.withLock { loop.completionWaiters } >= 1 })
        release.store(true, ordering: .releasing)
        #expect(cancelled.wait(timeout: deadline()) == .success)
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(cancelSawFinished.values == [true])
        #expect(outcome.values == [.fired])
    }

    /// On the shared loop: a chain of short `asyncAfter`s, each armed from the previous
    /// one's job, which a spinning worker may fire itself instead of waiting for the event
    /// thread's wake-up. What must always hold: every job runs once, in order, never early.
    /// How many a worker fired is a scheduling outcome, printed, not asserted: a busy
    /// machine rightly lets the event thread fire every one (issue 24: this test failed
    /// CI under ThreadSanitizer when it required some).
    ///
    /// In a child process, so that the figure printed is this chain's alone.
    @Test func aShortTimerChainRunsOnceInOrderNeverEarly() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            finishChild(Self.shortTimerChain())
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    /// The chain behind `aShortTimerChainRunsOnceInOrderNeverEarly`: prints its figures and
    /// returns whether every job ran once, in order, never early.
    private static func shortTimerChain() -> Bool {
        let count = 200
        let queue = DispatchQueue(label: "test.short-timers")
        let firedBefore = EventLoop.shared.poolFiredTimers.load(ordering: .relaxed)
        let early = Atomic<Int>(0)
        let order = TestLog<Int>()
        let done = DispatchSemaphore(value: 0)
        @Sendable func step(_ index: Int) {
            let due = DispatchTime.now() + .microseconds(40)
            queue.asyncAfter(deadline: due) {
                if DispatchTime.now() < due { early.add(1, ordering: .relaxed) }
                order.append(index)
                if index + 1 < count { step(index + 1) } else { done.signal() }
            }
        }
        queue.async { step(0) }
        let finished = done.wait(timeout: deadline()) == .success
        let inOrder = order.values == Array(0..<count)
        let earlyCount = early.load(ordering: .relaxed)
        let poolFired = EventLoop.shared.poolFiredTimers.load(ordering: .relaxed) - firedBefore
        say("short timer chain: finished \(finished), in order \(inOrder), early \(earlyCount), fired by workers \(poolFired) of \(count)")
        return finished && inOrder && earlyCount == 0
    }
}
