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

@Suite struct QueueLifecycleTests {
    @Test func suspendedQueueStartsNothingUntilResumed() {
        let queue = DispatchQueue(label: "suspended")
        let counter = Counter()
        queue.suspend()
        queue.suspend()   // nests
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<100 { queue.async { counter.increment() } }
        queue.async { done.signal() }
        #expect(done.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        #expect(counter.current == 0)
        queue.resume()
        #expect(done.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        #expect(counter.current == 0)
        queue.resume()
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(counter.current == 100)
    }

    @Test func suspendStopsBetweenTasks() {
        let queue = DispatchQueue(label: "suspend-midway")
        let counter = Counter()
        let firstRunning = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        queue.async { firstRunning.signal(); _ = release.wait(timeout: deadline()) }
        queue.async { counter.increment() }
        #expect(firstRunning.wait(timeout: deadline()) == .success)
        queue.suspend()
        release.signal()
        #expect(!waitUntil(seconds: 0.2) { counter.current > 0 })
        queue.resume()
        #expect(waitUntil { counter.current == 1 })
    }

    @Test func inactiveQueueStartsNothingUntilActivated() {
        let queue = DispatchQueue(label: "inactive", attributes: .initiallyInactive)
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        #expect(done.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        queue.activate()
        #expect(done.wait(timeout: deadline()) == .success)
        queue.activate()   // activating again does nothing
    }

    @Test func resumeActivatesAnInactiveQueue() {
        let queue = DispatchQueue(label: "resume-activates", attributes: [.concurrent, .initiallyInactive])
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        queue.resume()
        #expect(done.wait(timeout: deadline()) == .success)
    }

    @Test func serialTargetSerializesItsChildren() {
        let parent = DispatchQueue(label: "parent")
        let children = (0..<8).map { DispatchQueue(label: "child\($0)", target: parent) }
        let running = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let group = DispatchGroup()
        for i in 0..<4_000 {
            children[i % 8].async(group: group) {
                if running.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        #expect(group.wait(timeout: deadline()) == .success)
        let seen = overlaps.load(ordering: .relaxed)
        #expect(seen == 0)
    }

    @Test func setTargetBeforeActivation() {
        let parent = DispatchQueue(label: "late-parent")
        let key = DispatchSpecificKey<String>()
        parent.setSpecific(key: key, value: "parent")
        let child = DispatchQueue(label: "late-child", attributes: .initiallyInactive)
        child.setTarget(queue: parent)
        child.activate()
        #expect(child.sync { DispatchQueue.getSpecific(key: key) } == "parent")
        let viaAsync = TestLog<String?>()
        let done = DispatchSemaphore(value: 0)
        child.async { viaAsync.append(DispatchQueue.getSpecific(key: key)); done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(viaAsync.values == ["parent"])
    }

    @Test func concurrentQueueTargetingASerialQueueRunsOneAtATime() {
        let parent = DispatchQueue(label: "serial-parent")
        let child = DispatchQueue(label: "concurrent-child", attributes: .concurrent, target: parent)
        let running = Atomic<Int>(0), overlaps = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<1_000 {
            child.async(group: group) {
                if running.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(child.sync { 3 } == 3)
        let seen = overlaps.load(ordering: .relaxed)
        #expect(seen == 0)
    }

    @Test func serialQueueTargetingAConcurrentQueue() {
        let parent = DispatchQueue(label: "concurrent-parent", attributes: .concurrent)
        let child = DispatchQueue(label: "serial-child", target: parent)
        let log = TestLog<Int>()
        let group = DispatchGroup()
        for i in 0..<1_000 { child.async(group: group) { log.append(i) } }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(log.values == Array(0..<1_000))
        #expect(child.sync { 4 } == 4)
    }

    @Test func labelsAndQoS() {
        let queue = DispatchQueue(label: "com.example.worker", qos: .utility)
        #expect(queue.label == "com.example.worker")
        #expect(queue.qos.qosClass == .utility)
        #expect(DispatchQueue.main.label == "com.apple.main-thread")
        #expect(DispatchQueue(label: "plain").qos.qosClass == .unspecified)
    }

    @Test func backgroundWorkRunsWithAHigherNiceValue() {
        let seen = TestLog<Int32>()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: .background).async { seen.append(ThreadInfo.nice); done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(seen.values == [10])
        let utility = DispatchQueue(label: "utility", qos: .utility)
        utility.async { seen.append(ThreadInfo.nice); done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(seen.values.last == 2)   // libdispatch's utility value
    }
}
