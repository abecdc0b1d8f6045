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
@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct SemaphoreTests {
    @Test func semaphoreOfThreeNeverAdmitsFourOf60ContendingTasks() {
        let semaphore = DispatchSemaphore(value: 3)
        let inside = Atomic<Int>(0)
        let mostInside = Atomic<Int>(0)
        let passes = Counter()
        // Plain threads, not pool tasks: the pool runs about one task per CPU, which would
        // never reach the door of a semaphore of three.
        let tasks = (0..<60).map { _ in
            TestThread {
                for _ in 0..<20 {
                    semaphore.wait()
                    let now = inside.add(1, ordering: .relaxed).newValue
                    mostInside.max(now, ordering: .relaxed)
                    usleep(100)   // stay inside a while, so that others pile up at the door
                    inside.subtract(1, ordering: .relaxed)
                    passes.increment()
                    semaphore.signal()
                }
            }
        }
        for task in tasks { task.join() }
        #expect(passes.current == 60 * 20)
        // Never more than three at once, and the 60 tasks did contend up to the limit.
        #expect(mostInside.load(ordering: .relaxed) == 3)
        // The count is back to three: three non-blocking waits succeed, the fourth does not.
        #expect(drainCount(semaphore) == 3)
        for _ in 0..<3 { semaphore.signal() }
    }

    @Test func timedOutWaitRacingASignalLeavesTheRightCount() {
        let semaphore = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let rounds = 2_000
        let outcome = Atomic<Int>(0)          // 1: success, 2: timed out
        let waiter = TestThread {
            for round in 0..<rounds {
                start.wait()
                // A timeout of 0 ... 19 µs: about as long as the signaller's head start.
                let timeout = DispatchTime.now() + .nanoseconds((round % 20) * 1_000)
                let result = round % 4 == 3
                    ? semaphore.wait(wallTimeout: .now() + .nanoseconds((round % 20) * 1_000))
                    : semaphore.wait(timeout: timeout)
                outcome.store(result == .success ? 1 : 2, ordering: .relaxed)
                finished.signal()
            }
        }
        var successes = 0, timeouts = 0, wokeWaiter = 0, mismatches = 0
        for round in 0..<rounds {
            start.signal()
            for _ in 0..<((round * 7919) % 4_000) { spinPause() }
            let woke = semaphore.signal()
            #expect(finished.wait(timeout: deadline()) == .success)
            let result = outcome.load(ordering: .relaxed)
            if result == 1 { successes += 1 } else { timeouts += 1 }
            if woke == 1 { wokeWaiter += 1 }
            // A signal that counted the waiter must have been consumed by it.
            if woke == 1 && result != 1 { mismatches += 1 }
            // Success consumed the signal: nothing is left. A timeout left the signal's unit.
            let left = drainCount(semaphore)
            if left != (result == 1 ? 0 : 1) { mismatches += 1 }
        }
        waiter.join()
        print("timed-wait race: \(successes) successes (\(wokeWaiter) woken by signal), \(timeouts) timeouts")
        #expect(mismatches == 0)
        #expect(successes + timeouts == rounds)
    }

    @Test func manyTimedWaitersRacingSignalsBalance() {
        let semaphore = DispatchSemaphore(value: 0)
        let successes = Counter()
        let waiters = (0..<4).map { index in
            TestThread {
                for attempt in 0..<1_500 {
                    let timeout = DispatchTime.now() + .nanoseconds(((attempt + index) % 30) * 1_000)
                    if semaphore.wait(timeout: timeout) == .success { successes.increment() }
                }
            }
        }
        let signals = 3_000
        for signal in 0..<signals {
            semaphore.signal()
            for _ in 0..<((signal * 104_729) % 2_000) { spinPause() }
        }
        for waiter in waiters { waiter.join() }
        // Every signal is either taken by a successful wait or still in the count.
        let left = drainCount(semaphore)
        #expect(successes.current + left == signals)
        #expect(semaphore.currentValue == 0)
    }

    @Test func blockedWaiterSleepsAndSignalWakesIt() {
        let semaphore = DispatchSemaphore(value: 0)
        let tid = Atomic<Int32>(0)
        let result = Atomic<Int>(0)
        let waiter = TestThread {
            tid.store(currentThreadID(), ordering: .relaxed)
            result.store(semaphore.wait(timeout: deadline()) == .success ? 1 : 2, ordering: .relaxed)
        }
        // The waiter has counted itself and is asleep in the kernel (not spinning).
        #expect(waitUntil { semaphore.currentValue == -1 })
        #expect(waitUntil { threadState(tid.load(ordering: .relaxed)) == "S" })
        #expect(semaphore.signal() == 1)   // woke a thread
        waiter.join()
        #expect(result.load(ordering: .relaxed) == 1)
        #expect(semaphore.signal() == 0)   // no one waits now
        #expect(semaphore.wait(timeout: .now()) == .success)
    }

    @Test func eightBlockedWaitersAllWakeForEightSignals() {
        let semaphore = DispatchSemaphore(value: 0)
        let woken = Counter()
        let waiters = (0..<8).map { _ in
            TestThread { if semaphore.wait(timeout: deadline()) == .success { woken.increment() } }
        }
        #expect(waitUntil { semaphore.currentValue == -8 })
        var reported = 0
        for _ in 0..<8 { reported += semaphore.signal() }
        for waiter in waiters { waiter.join() }
        #expect(woken.current == 8)
        #expect(reported == 8)
        #expect(semaphore.currentValue == 0)
    }

    @Test func timeoutsAreNeverEarly() {
        let semaphore = DispatchSemaphore(value: 0)
        for milliseconds in [1, 5, 20] {
            let start = DispatchTime.now()
            #expect(semaphore.wait(timeout: start + .milliseconds(milliseconds)) == .timedOut)
            #expect(elapsedNanoseconds(since: start) >= UInt64(milliseconds) * 1_000_000)
        }
        #expect(semaphore.wait(timeout: .now()) == .timedOut)
        #expect(semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: 1)) == .timedOut)
        #expect(semaphore.currentValue == 0)
    }

    @Test func wallTimeoutFormsTimeOutAndSucceed() {
        let semaphore = DispatchSemaphore(value: 0)
        // The monotonic start first: a preemption between the two reads then only makes
        // the measured wait longer, never shorter.
        let start = DispatchTime.now()
        let startWall = DispatchWallTime.now()
        #expect(semaphore.wait(wallTimeout: startWall + .milliseconds(20)) == .timedOut)
        #expect(DispatchWallTime.now() >= startWall + .milliseconds(20))
        // CLOCK_REALTIME may be slewed a little against CLOCK_MONOTONIC: allow 1 ms.
        #expect(elapsedNanoseconds(since: start) >= 19_000_000)
        #expect(semaphore.wait(wallTimeout: .now()) == .timedOut)

        DispatchQueue.global().async { semaphore.signal() }
        #expect(semaphore.wait(wallTimeout: .now() + .seconds(30)) == .success)
        semaphore.signal()
        #expect(semaphore.wait(wallTimeout: .distantFuture) == .success)
        #expect(semaphore.currentValue == 0)
    }

    @Test func untimedAndDistantFutureWaitsSucceedWhenSignalled() {
        let semaphore = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { semaphore.signal() }
        semaphore.wait()
        DispatchQueue.global().async { semaphore.signal() }
        #expect(semaphore.wait(timeout: .distantFuture) == .success)
        let initial = DispatchSemaphore(value: 2)
        #expect(initial.wait(timeout: .now()) == .success)
        #expect(initial.wait(timeout: .now()) == .success)
        #expect(initial.wait(timeout: .now()) == .timedOut)
        initial.signal()
        initial.signal()
    }

    /// libdispatch's pool starves here (one new thread a second); Conveyor's semaphore
    /// tells the pool its worker blocks, so a replacement starts at once.
    @Test func sixtyFourTasksBlockedUntilTheLastStartsAllRun() {
        let count = 64
        let started = Counter()
        let allStarted = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<count {
            DispatchQueue.global().async(group: group) {
                if started.increment() == count {
                    for _ in 0..<count { allStarted.signal() }
                }
                allStarted.wait()
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(started.current == count)
    }

    // MARK: misuse traps (each in a child process)

    @Test func negativeInitialValueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DispatchSemaphore(value: -1)
        }
        #expect(standardError(of: result).contains("DispatchSemaphore created with a negative value (-1)"))
    }

    @Test func releasingASemaphoreWhileInUseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let semaphore = DispatchSemaphore(value: 1)
            semaphore.wait()
            // Dropped with its count (0) below its initial value (1).
        }
        #expect(standardError(of: result).contains("DispatchSemaphore released while in use"))
    }

    @Test func signallingPastTheLargestCountTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let semaphore = DispatchSemaphore(value: Int.max)
            semaphore.signal()
        }
        #expect(standardError(of: result).contains("unbalanced call to DispatchSemaphore.signal()"))
    }

    @Test func releasingASemaphoreAtOrAboveItsInitialValueIsFine() {
        let semaphore = DispatchSemaphore(value: 1)
        semaphore.wait()
        semaphore.signal()
        semaphore.signal()   // above the initial value: allowed, as in libdispatch
    }
}

// MARK: - Helpers of the semaphore tests

/// Takes units with non-blocking waits until one times out; returns how many it took.
func drainCount(_ semaphore: DispatchSemaphore) -> Int {
    var taken = 0
    while semaphore.wait(timeout: .now()) == .success { taken += 1 }
    return taken
}
