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

import Conveyor
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct SerialQueueTests {
    @Test func tasksStartInFIFOOrderOneAtATime() {
        let queue = DispatchQueue(label: "fifo")
        let log = TestLog<Int>()
        let running = Atomic<Int>(0)
        let overlap = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        for i in 0..<10_000 {
            queue.async {
                if running.add(1, ordering: .relaxed).newValue != 1 { overlap.store(true, ordering: .relaxed) }
                log.append(i)
                running.subtract(1, ordering: .relaxed)
                if i == 9_999 { done.signal() }
            }
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(log.values == Array(0..<10_000))
        let overlapped = overlap.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    @Test func twoSerialQueuesRunAtTheSameTime() {
        let a = DispatchQueue(label: "a"), b = DispatchQueue(label: "b")
        let aStarted = DispatchSemaphore(value: 0), bStarted = DispatchSemaphore(value: 0)
        let results = TestLog<DispatchTimeoutResult>()
        let group = DispatchGroup()
        a.async(group: group) { aStarted.signal(); results.append(bStarted.wait(timeout: deadline(seconds: 20))) }
        b.async(group: group) { bStarted.signal(); results.append(aStarted.wait(timeout: deadline(seconds: 20))) }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(results.values == [.success, .success])
    }

    @Test func thousandQueuesTimesFiveHundredTasksRunOnceInOrder() {
        let queueCount = 1000, perQueue = 500
        let queues = (0..<queueCount).map { DispatchQueue(label: "q\($0)") }
        final class Slot: @unchecked Sendable { var seen: [Int] = [] }
        let slots = (0..<queueCount).map { _ in Slot() }
        let group = DispatchGroup()
        for task in 0..<perQueue {
            for (index, queue) in queues.enumerated() {
                let slot = slots[index]
                queue.async(group: group) { slot.seen.append(task) }
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 120)) == .success)
        for slot in slots {   // each slot was only touched by its own serial queue
            #expect(slot.seen == Array(0..<perQueue))
        }
    }

    @Test func eightThreadsSubmittingToOneQueueLoseNothing() {
        let queue = DispatchQueue(label: "target")
        let counter = Counter()
        let group = DispatchGroup()
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<perThread { queue.async(group: group) { counter.increment() } }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(counter.current == 8 * perThread)
    }

    @Test func syncReturnsValuesAndRunsOnTheCallerWhenIdle() {
        let queue = DispatchQueue(label: "sync")
        let caller = currentThreadID()
        let ranOn = queue.sync { currentThreadID() }
        #expect(ranOn == caller)
        #expect(queue.sync { 6 * 7 } == 42)
    }

    @Test func syncRethrowsAndLeavesTheQueueUsable() {
        struct Failure: Error {}
        let queue = DispatchQueue(label: "throws")
        #expect(throws: Failure.self) { try queue.sync { throw Failure() } }
        #expect(queue.sync { 1 } == 1)
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
    }

    @Test func syncWaitsBehindQueuedWorkInOrder() {
        let queue = DispatchQueue(label: "behind")
        let log = TestLog<Int>()
        let gate = DispatchSemaphore(value: 0)
        queue.async { _ = gate.wait(timeout: deadline()); log.append(1) }
        queue.async { log.append(2) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { gate.signal() }
        queue.sync { log.append(3) }
        #expect(log.values == [1, 2, 3])
    }

    @Test func syncFromManyThreadsIsMutuallyExclusive() {
        let queue = DispatchQueue(label: "mutex")
        final class Box: @unchecked Sendable { var value = 0 }
        let box = Box()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<5_000 { queue.sync { box.value += 1 } }
        }
        #expect(queue.sync { box.value } == 80_000)
    }

    /// Every pool worker may be blocked in `sync` on one serial queue: the drain must reach
    /// the next waiter from the thread that gives it up (or from the waiter itself), never
    /// through a drain job that needs a free worker. It did: a waiter that linked itself
    /// just after the holder looked, or just after the holder let the queue go, scheduled
    /// the drain on the pool, where no worker was left to run it once all of them (up to
    /// the thread limit) waited on that queue (found under the drop-in library, where
    /// every `sync` is slower; 10 of 40 runs hung).
    @Test func syncFromEveryBlockedWorkerReachesTheNextWaiter() {
        let concurrent = DispatchQueue(label: "fan-out", attributes: .concurrent)
        let serial = DispatchQueue(label: "contended")
        final class Box: @unchecked Sendable { var value = 0 }
        for round in 0..<50 {
            let group = DispatchGroup()
            let box = Box()
            // Each holder yields its CPU, so callers pile up behind the first one while it
            // holds the queue from the idle fast path, and behind each one handed it after.
            for index in 0..<1000 { concurrent.async(group: group) { serial.sync { box.value += index; sched_yield() } } }
            let finished = group.wait(timeout: deadline()) == .success
            #expect(finished, "round \(round): the group never emptied")
            if !finished { return }
            #expect(serial.sync { box.value } == 499_500)
        }
    }

    @Test func queueIsFreedAfterItsWorkAndLastReference() {
        weak var weakQueue: DispatchQueue?
        let done = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        do {
            let queue = DispatchQueue(label: "short-lived")
            weakQueue = queue
            queue.async { _ = gate.wait(timeout: deadline()) }
            queue.async { done.signal() }
        }
        #expect(weakQueue != nil)   // alive while it has work
        gate.signal()
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(waitUntil { weakQueue == nil })
    }
}
