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

@Suite struct ConcurrentQueueTests {
    @Test func tasksRunConcurrently() {
        let queue = DispatchQueue(label: "concurrent", attributes: .concurrent)
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let results = TestLog<DispatchTimeoutResult>()
        let group = DispatchGroup()
        queue.async(group: group) { first.signal(); results.append(second.wait(timeout: deadline(seconds: 20))) }
        queue.async(group: group) { second.signal(); results.append(first.wait(timeout: deadline(seconds: 20))) }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(results.values == [.success, .success])
    }

    @Test func barrierRunsAloneAfterEarlierAndBeforeLaterTasks() {
        let queue = DispatchQueue(label: "rw", attributes: .concurrent)
        let running = Atomic<Int>(0)
        let violations = Atomic<Int>(0)
        let barrierDone = Atomic<Bool>(false)
        let early = Atomic<Int>(0)
        let group = DispatchGroup()
        for round in 0..<20 {
            for _ in 0..<50 {
                queue.async(group: group) {
                    running.add(1, ordering: .sequentiallyConsistent)
                    for _ in 0..<200 { _ = running.load(ordering: .relaxed) }
                    running.subtract(1, ordering: .sequentiallyConsistent)
                }
            }
            queue.async(group: group, flags: .barrier) {
                if running.load(ordering: .sequentiallyConsistent) != 0 { violations.add(1, ordering: .relaxed) }
                if round == 19 { barrierDone.store(true, ordering: .sequentiallyConsistent) }
                for _ in 0..<500 { _ = running.load(ordering: .relaxed) }
                if running.load(ordering: .sequentiallyConsistent) != 0 { violations.add(1, ordering: .relaxed) }
            }
        }
        queue.async(group: group) {
            if !barrierDone.load(ordering: .sequentiallyConsistent) { early.add(1, ordering: .relaxed) }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        let seenViolations = violations.load(ordering: .relaxed)
        let seenEarly = early.load(ordering: .relaxed)
        #expect(seenViolations == 0)
        #expect(seenEarly == 0)
    }

    @Test func syncReadsAndBarrierWritesFromManyThreads() {
        let queue = DispatchQueue(label: "store", attributes: .concurrent)
        final class Store: @unchecked Sendable { var values: [Int] = [] }
        let store = Store()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<2_000 {
                if i % 10 == 0 {
                    queue.sync(flags: .barrier) { store.values.append(thread) }
                } else {
                    _ = queue.sync { store.values.count }
                }
            }
        }
        #expect(queue.sync { store.values.count } == 4 * 200)
    }

    @Test func reentrantSyncOnAConcurrentQueueRunsInline() {
        let queue = DispatchQueue(label: "reentrant", attributes: .concurrent)
        let value = queue.sync { queue.sync { 7 } }
        #expect(value == 7)
    }

    @Test func barrierSyncWaitsForRunningTasks() {
        let queue = DispatchQueue(label: "barrier-sync", attributes: .concurrent)
        let started = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        queue.async {
            started.signal()
            var spins = 0
            while spins < 2_000_000 { spins += 1 }
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        #expect(started.wait(timeout: deadline()) == .success)
        let sawFinished = queue.sync(flags: .barrier) { finished.load(ordering: .sequentiallyConsistent) }
        #expect(sawFinished)
    }

    @Test func globalQueuesIgnoreBarriersAndRunEverything() {
        let counter = Counter()
        let group = DispatchGroup()
        for qos in [DispatchQoS.QoSClass.userInteractive, .userInitiated, .default, .utility, .background, .unspecified] {
            for _ in 0..<100 {
                DispatchQueue.global(qos: qos).async(group: group, flags: .barrier) { counter.increment() }
            }
        }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(counter.current == 600)
        #expect(DispatchQueue.global(qos: .utility).qos.qosClass == .utility)
        #expect(DispatchQueue.global().sync { 5 } == 5)
    }
}
