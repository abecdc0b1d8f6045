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

@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct GroupTests {
    @Test func notifySeesAllWorkDone() {
        let group = DispatchGroup()
        let done = Counter()
        let queues = (0..<4).map { DispatchQueue(label: "group.\($0)", attributes: $0 % 2 == 0 ? [] : .concurrent) }
        let seenByNotify = Atomic<Int>(-1)
        let notified = DispatchSemaphore(value: 0)
        group.enter()   // held until everything is submitted, so notify cannot come early by luck
        for index in 0..<2_000 {
            queues[index % 4].async(group: group) { done.increment() }
        }
        for _ in 0..<200 {   // manual enter/leave from other threads too
            group.enter()
            DispatchQueue.global().async { done.increment(); group.leave() }
        }
        group.notify(queue: queues[1]) {
            seenByNotify.store(done.current, ordering: .relaxed)
            notified.signal()
        }
        DispatchQueue.global().async { group.leave() }
        #expect(notified.wait(timeout: deadline()) == .success)
        #expect(seenByNotify.load(ordering: .relaxed) == 2_200)
    }

    @Test func notifyRunsOnItsQueueInEveryForm() {
        let group = DispatchGroup()
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "notify.target")
        queue.setSpecific(key: key, value: 7)
        let gate = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) { gate.wait() }
        let ranOn = SyncLog<Int>()
        let finished = DispatchGroup()
        finished.enter()
        finished.enter()
        group.notify(qos: .userInitiated, flags: [], queue: queue) {
            ranOn.append(DispatchQueue.getSpecific(key: key) ?? -1)
            finished.leave()
        }
        let item = DispatchWorkItem { ranOn.append(DispatchQueue.getSpecific(key: key) ?? -1) }
        group.notify(queue: queue, work: item)
        item.notify(queue: .global()) { finished.leave() }
        #expect(ranOn.count == 0)   // the group still holds the gated task
        gate.signal()
        #expect(finished.wait(timeout: deadline()) == .success)
        #expect(ranOn.values == [7, 7])
    }

    @Test func notifyOnAnEmptyGroupRunsAtOnce() {
        let group = DispatchGroup()
        let ran = DispatchSemaphore(value: 0)
        group.notify(queue: .global()) { ran.signal() }
        #expect(ran.wait(timeout: deadline()) == .success)
        #expect(group.wait(timeout: .now()) == .success)
    }

    @Test func groupIsReusableAfterItEmpties() {
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "reuse", attributes: .concurrent)
        let notifications = SyncLog<Int>()
        for round in 1...50 {
            let counter = Counter()
            for _ in 0..<round { queue.async(group: group) { counter.increment() } }
            let notified = DispatchSemaphore(value: 0)
            group.notify(queue: .global()) {
                notifications.append(counter.current)
                notified.signal()
            }
            #expect(group.wait(timeout: deadline()) == .success)
            #expect(counter.current == round)
            #expect(notified.wait(timeout: deadline()) == .success)
            #expect(group.currentCount == 0)
        }
        // Each round's notification ran exactly once and saw that round's work.
        #expect(notifications.values == Array(1...50))
    }

    /// libdispatch's rule: a waiter returns once the group has emptied since it began
    /// waiting, even if the group is entered again at once (the generation changed).
    @Test func waiterReturnsWhenTheGroupEmptiesEvenIfReenteredAtOnce() {
        let group = DispatchGroup()
        group.enter()
        let result = Atomic<Int>(0)
        let waiter = TestThread {
            result.store(group.wait(timeout: .now() + .seconds(10)) == .success ? 1 : 2, ordering: .relaxed)
        }
        #expect(waitUntil { group.waiterCount == 1 })
        group.leave()
        group.enter()   // the next generation starts before the waiter gets to look
        waiter.join()
        #expect(result.load(ordering: .relaxed) == 1)
        group.leave()
    }

    /// A notification registered while the group holds work must wait for that work,
    /// even if an earlier generation's last `leave()` is still finishing on another thread.
    ///
    /// Each round: a serial queue empties the group; the moment the test thread sees it
    /// empty, it enters again and registers a notification, then gives an early run a
    /// moment to show itself before finishing its work. A thread keeps waiting on the
    /// group, so the emptying `leave()` also has waiters to wake, which widens the window
    /// between emptying the group and sweeping its notifications.
    @Test func notifyRegisteredAfterReenteringWaitsForTheNewWork() {
        let group = DispatchGroup()
        let rounds = 2_000
        let stop = Atomic<Bool>(false)
        let waiter = TestThread {
            while !stop.load(ordering: .relaxed) { _ = group.wait(timeout: .now() + .milliseconds(1)) }
        }
        let workDone = Atomic<Int>(-1)    // the last round whose work finished
        let early = Counter()
        let notified = Counter()
        let leaver = DispatchQueue(label: "leaver")
        for round in 0..<rounds {
            group.enter()
            leaver.async { group.leave() }
            let end = DispatchTime.now() + .seconds(10)
            while group.currentCount != 0 && DispatchTime.now() < end { spinPause() }
            group.enter()
            group.notify(queue: .global()) {
                if workDone.load(ordering: .acquiring) < round { early.increment() }
                notified.increment()
            }
            let until = DispatchTime.now() + .microseconds(50)
            while notified.current <= round && DispatchTime.now() < until { spinPause() }
            workDone.store(round, ordering: .releasing)
            group.leave()
        }
        stop.store(true, ordering: .relaxed)
        waiter.join()
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(waitUntil { notified.current == rounds })
        #expect(early.current == 0)
    }

    @Test func timedWaitsTimeOutNeverEarlyThenSucceed() {
        let group = DispatchGroup()
        group.enter()
        let start = DispatchTime.now()
        #expect(group.wait(timeout: start + .milliseconds(20)) == .timedOut)
        #expect(elapsedNanoseconds(since: start) >= 20_000_000)
        #expect(group.wait(timeout: .now()) == .timedOut)
        let startWall = DispatchWallTime.now()
        #expect(group.wait(wallTimeout: startWall + .milliseconds(20)) == .timedOut)
        #expect(DispatchWallTime.now() >= startWall + .milliseconds(20))
        #expect(group.wait(wallTimeout: .now()) == .timedOut)
        DispatchQueue.global().async { group.leave() }
        #expect(group.wait(wallTimeout: .now() + .seconds(30)) == .success)
        #expect(group.wait(timeout: .now()) == .success)
        #expect(group.wait(wallTimeout: .now()) == .success)
        group.wait()   // empty: returns at once
    }

    @Test func untimedWaitReturnsWhenWorkFinishes() {
        let group = DispatchGroup()
        let counter = Counter()
        for _ in 0..<100 {
            DispatchQueue.global().async(group: group) { usleep(100); counter.increment() }
        }
        group.wait()
        #expect(counter.current == 100)
        #expect(group.wait(timeout: .distantFuture) == .success)
    }

    @Test func workItemsInAGroup() {
        let group = DispatchGroup()
        let counter = Counter()
        let queue = DispatchQueue(label: "items", attributes: .concurrent)
        for _ in 0..<100 {
            queue.async(group: group, execute: DispatchWorkItem { counter.increment() })
        }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(counter.current == 100)
    }

    @Test func manyWaitersAllWake() {
        let group = DispatchGroup()
        group.enter()
        let woken = Counter()
        let waiters = (0..<6).map { _ in
            TestThread { if group.wait(timeout: deadline()) == .success { woken.increment() } }
        }
        #expect(waitUntil { group.waiterCount == 6 })
        group.leave()
        for waiter in waiters { waiter.join() }
        #expect(woken.current == 6)
    }

    /// Pool tasks that wait on a group whose work is queued behind them on the same pool:
    /// the waits tell the pool they block, so the work still gets a thread.
    @Test func waitsOnPoolThreadsDoNotStarveTheWorkTheyWaitFor() {
        let inner = DispatchGroup()
        let outer = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        // Entered first: a waiter that ran before the enter would pass at once, and the
        // last check below would then race the leave.
        inner.enter()
        for _ in 0..<16 {
            DispatchQueue.global().async(group: outer) { _ = inner.wait(timeout: deadline()) }
        }
        DispatchQueue.global().async { gate.wait(); inner.leave() }
        gate.signal()
        #expect(outer.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(inner.wait(timeout: .now()) == .success)
    }

    @Test func unbalancedLeaveTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let group = DispatchGroup()
            group.enter()
            group.leave()
            group.leave()
        }
        #expect(standardError(of: result).contains("unbalanced call to DispatchGroup.leave()"))
    }
}

/// A thread-safe log for these tests. Its lock hands off through atomic operations
/// (`FutexLock`), so ThreadSanitizer sees the ordering; `Mutex` under contention gives
/// false reports there.
final class SyncLog<Element: Sendable>: @unchecked Sendable {
    private let lock = FutexLock()
    private var storage: [Element] = []   // guarded by lock

    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var values: [Element] { lock.withLock { storage } }
    var count: Int { lock.withLock { storage.count } }
}
