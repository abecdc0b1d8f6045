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

/// libdispatch on Linux adds about one thread a second when its workers block, so 64 tasks
/// that wait for each other take about a minute to start. Conveyor replaces a worker that
/// blocks in a Conveyor wait at once, and a watchdog covers waits it cannot see.
@Suite(.serialized) struct BlockingTests {
    /// 64 tasks on a global queue that each block until all 64 have started. The bound
    /// here is generous (the target is 100 ms; the measured time is printed). In a child
    /// process: the thread count must not include what other suites, running in
    /// parallel, start meanwhile (seen once: 127 threads against a bound of 89).
    @Test func sixtyFourBlockingTasksAllStartQuickly() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            finishChild(sixtyFourBlockingTasks())
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    /// Blocking Conveyor cannot see (here `usleep` standing in for a read or a foreign
    /// lock): the watchdog adds threads so queued work still starts.
    @Test func watchdogStartsWorkBehindInvisibleBlocking() {
        let blockers = ThreadInfo.cpuCount
        let release = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<blockers {
            DispatchQueue.global().async(group: group) {
                let end = DispatchTime.now() + .seconds(30)
                while !release.load(ordering: .acquiring) && DispatchTime.now() < end { usleep(1000) }
            }
        }
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { ran.signal() }
        let result = ran.wait(timeout: deadline(seconds: 20))
        release.store(true, ordering: .releasing)
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(result == .success)
    }

    /// A task that blocks forever on one queue does not stop other queues.
    @Test func aBlockedQueueDoesNotStopOthers() {
        let stuck = DispatchQueue(label: "stuck")
        let gate = DispatchSemaphore(value: 0)
        stuck.async { _ = gate.wait(timeout: deadline(seconds: 60)) }
        let others = (0..<8).map { DispatchQueue(label: "other\($0)") }
        let group = DispatchGroup()
        let counter = Counter()
        for queue in others {
            for _ in 0..<100 { queue.async(group: group) { counter.increment() } }
        }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(counter.current == 800)
        gate.signal()
    }
}

/// The scenario of `sixtyFourBlockingTasksAllStartQuickly`; prints its figures and returns
/// whether every bound held.
private func sixtyFourBlockingTasks() -> Bool {
    let tasks = 64
    let started = Atomic<Int>(0)
    let allStarted = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    let threadsBefore = ThreadInfo.processThreadCount
    let begin = DispatchTime.now()
    for _ in 0..<tasks {
        DispatchQueue.global().async(group: group) {
            if started.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == tasks { allStarted.signal() }
            _ = release.wait(timeout: deadline(seconds: 60))
        }
    }
    let result = allStarted.wait(timeout: deadline(seconds: 20))
    let elapsedMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - begin.uptimeNanoseconds) / 1e6
    let peakThreads = ThreadInfo.processThreadCount
    for _ in 0..<tasks { release.signal() }
    let finished = group.wait(timeout: deadline()) == .success
    say("64 blocking tasks all started in \(elapsedMilliseconds) ms; threads \(threadsBefore) -> \(peakThreads)")
    return finished && result == .success && elapsedMilliseconds < 5_000
        && peakThreads <= threadsBefore + tasks + ThreadInfo.cpuCount + 2
}
