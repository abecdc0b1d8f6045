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

@Suite struct AsyncAfterTests {
    /// 1,000 timers with deadlines spread over 200 ms on serial and global queues: each
    /// checks, when it runs, that the clock has reached its deadline.
    @Test func manyTimersNeverRunEarly() {
        let timers = 1_000
        let early = Counter()
        let lateness = SyncLog<UInt64>()
        let group = DispatchGroup()
        let queues = (0..<4).map { DispatchQueue(label: "after.\($0)") } + [.global(), .global(qos: .userInitiated)]
        let start = DispatchTime.now()
        for index in 0..<timers {
            let deadline = start + .microseconds((index * 7_919) % 200_000)
            group.enter()
            queues[index % queues.count].asyncAfter(deadline: deadline) {
                let now = DispatchTime.now()
                if now < deadline { early.increment() }
                lateness.append(now.uptimeNanoseconds &- deadline.uptimeNanoseconds)
                group.leave()
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(early.current == 0)
        let sorted = lateness.values.sorted()
        print("asyncAfter lateness (debug build, parallel tests): p50 \(sorted[sorted.count / 2] / 1_000) µs, p99 \(sorted[sorted.count * 99 / 100] / 1_000) µs")
    }

    @Test func wallDeadlineTimersNeverRunEarly() {
        let timers = 300
        let early = Counter()
        let group = DispatchGroup()
        let start = DispatchWallTime.now()
        for index in 0..<timers {
            let deadline = start + .microseconds((index * 7_919) % 100_000)
            group.enter()
            DispatchQueue.global().asyncAfter(wallDeadline: deadline, qos: .utility, flags: []) {
                if DispatchWallTime.now() < deadline { early.increment() }
                group.leave()
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(early.current == 0)
    }

    @Test func workItemFormsRunAtTheirDeadline() {
        let queue = DispatchQueue(label: "after.items")
        let due = DispatchTime.now() + .milliseconds(20)
        let ranAt = Atomic<UInt64>(0)
        let item = DispatchWorkItem { ranAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
        queue.asyncAfter(deadline: due, execute: item)
        #expect(item.wait(timeout: deadline(seconds: 30)) == .success)
        #expect(ranAt.load(ordering: .relaxed) >= due.uptimeNanoseconds)

        let wallDeadline = DispatchWallTime.now() + .milliseconds(20)
        let wallEarly = Atomic<Bool>(true)
        let wallItem = DispatchWorkItem { wallEarly.store(DispatchWallTime.now() < wallDeadline, ordering: .relaxed) }
        queue.asyncAfter(wallDeadline: wallDeadline, execute: wallItem)
        #expect(wallItem.wait(timeout: deadline(seconds: 30)) == .success)
        let wallEarlyValue = wallEarly.load(ordering: .relaxed)
        #expect(!wallEarlyValue)
    }

    /// A work item cancelled before its deadline never runs: a later timer on the same
    /// serial queue runs after the cancelled one would have.
    @Test func cancelledWorkItemDoesNotRun() {
        let queue = DispatchQueue(label: "after.cancel")
        let ran = Atomic<Bool>(false)
        let item = DispatchWorkItem { ran.store(true, ordering: .relaxed) }
        // A second's lead: the cancel must come before the deadline.
        queue.asyncAfter(deadline: .now() + .seconds(1), execute: item)
        item.cancel()
        let later = DispatchSemaphore(value: 0)
        queue.asyncAfter(deadline: .now() + .milliseconds(1_030)) { later.signal() }
        #expect(later.wait(timeout: deadline()) == .success)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
    }

    @Test func pastAndNowDeadlinesRunPromptly() {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now()) { done.signal() }
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: 1)) { done.signal() }
        DispatchQueue.global().asyncAfter(wallDeadline: .now()) { done.signal() }
        DispatchQueue.global().asyncAfter(deadline: .now() - .seconds(1), execute: DispatchWorkItem { done.signal() })
        for _ in 0..<4 { #expect(done.wait(timeout: deadline()) == .success) }
    }

    @Test func distantFutureNeverRuns() {
        let queue = DispatchQueue(label: "after.never")
        let ran = Atomic<Bool>(false)
        queue.asyncAfter(deadline: .distantFuture) { ran.store(true, ordering: .relaxed) }
        queue.asyncAfter(wallDeadline: .distantFuture) { ran.store(true, ordering: .relaxed) }
        let later = DispatchSemaphore(value: 0)
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) { later.signal() }
        #expect(later.wait(timeout: deadline()) == .success)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
    }

    /// Timers on one serial queue with increasing deadlines run in deadline order, even
    /// when coalesced into one wake-up. (Only while they are all still pending: a timer
    /// whose deadline has already passed when it is submitted is queued at once, as in
    /// libdispatch, and may overtake an earlier one still waiting for its wake-up; so the
    /// first deadline is far enough ahead for the whole loop to submit.)
    @Test func timersOnASerialQueueRunInDeadlineOrder() {
        let queue = DispatchQueue(label: "after.order")
        let log = SyncLog<Int>()
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now() + .seconds(1)
        for index in 0..<100 {
            queue.asyncAfter(deadline: start + .microseconds(index * 100)) {
                log.append(index)
                if index == 99 { done.signal() }
            }
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(log.values == Array(0..<100))
    }

    @Test func barrierFlagIsHonouredAfterTheDeadline() {
        let queue = DispatchQueue(label: "after.barrier", attributes: .concurrent)
        let running = Atomic<Int>(0)
        let overlap = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<8 {
            queue.async(group: group) {
                running.add(1, ordering: .relaxed)
                usleep(2_000)
                running.subtract(1, ordering: .relaxed)
            }
        }
        group.enter()
        queue.asyncAfter(deadline: .now() + .milliseconds(1), qos: .default, flags: .barrier) {
            if running.load(ordering: .relaxed) != 0 { overlap.store(true, ordering: .relaxed) }
            group.leave()
        }
        #expect(group.wait(timeout: deadline()) == .success)
        let overlapValue = overlap.load(ordering: .relaxed)
        #expect(!overlapValue)
    }

    /// asyncAfter arms its timer with a zero-width window: the timerfd is set for the
    /// deadline itself, not for a later window end (checked in a child process, where no
    /// other test's timers share the heap).
    @Test func asyncAfterArmsItsTimerForTheDeadlineItself() async {
        await #expect(processExitsWith: .success) {
            let deadline = DispatchTime.now() + .seconds(3_600)
            DispatchQueue.global().asyncAfter(deadline: deadline) {}
            let monotonic = EventLoop.shared.timerQueues[Int(TimerClock.monotonic.rawValue)]
            let armed = EventLoop.shared.lock.withLock { monotonic.heap.nextFireTime }
            exit(armed == deadline.monotonicDeadline ? 0 : 1)
        }
    }
}
