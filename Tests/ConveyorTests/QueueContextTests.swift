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

@Suite struct QueueContextTests {
    @Test func specificValuesAreFoundThroughTheTargetChain() {
        let key = DispatchSpecificKey<Int>()
        let other = DispatchSpecificKey<String>()
        let root = DispatchQueue(label: "root")
        let middle = DispatchQueue(label: "middle", target: root)
        let leaf = DispatchQueue(label: "leaf", target: middle)
        root.setSpecific(key: key, value: 1)
        middle.setSpecific(key: other, value: "middle")
        #expect(leaf.getSpecific(key: key) == nil)       // the instance method looks at one queue
        #expect(root.getSpecific(key: key) == 1)
        #expect(leaf.sync { DispatchQueue.getSpecific(key: key) } == 1)
        #expect(leaf.sync { DispatchQueue.getSpecific(key: other) } == "middle")
        leaf.setSpecific(key: key, value: 3)
        #expect(leaf.sync { DispatchQueue.getSpecific(key: key) } == 3)
        leaf.setSpecific(key: key, value: nil)
        #expect(leaf.sync { DispatchQueue.getSpecific(key: key) } == 1)
        #expect(DispatchQueue.getSpecific(key: key) == nil)   // not on any queue here
    }

    /// `sync` onto a global queue runs on the calling thread but as that global queue's
    /// work, as on libdispatch: the caller's queue's values are not seen there, and a
    /// precondition on the global queue holds (both failed when the root `sync` pushed
    /// no frame: the values leaked through and the precondition trapped).
    @Test func syncOntoAGlobalQueueRunsAsThatQueue() {
        let key = DispatchSpecificKey<Int>()
        // (Utility: a caller targeting the default global queue would be on it already.)
        let serial = DispatchQueue(label: "caller", qos: .utility)
        serial.setSpecific(key: key, value: 3)
        let seen = serial.sync {
            DispatchQueue.global().sync { () -> (Int?, Bool, Bool) in
                dispatchPrecondition(condition: .onQueue(serial))   // still held by this thread
                // (What `dispatchPrecondition(condition: .onQueue(_:))` asks, without a trap.)
                return (DispatchQueue.getSpecific(key: key),
                        isRunning(on: DispatchQueue.global(), exclusively: false),
                        isRunning(on: DispatchQueue.global(qos: .userInitiated), exclusively: false))
            }
        }
        #expect(seen.0 == nil)
        #expect(seen.1)
        #expect(!seen.2)
        #expect(serial.sync { DispatchQueue.getSpecific(key: key) } == 3)
    }

    /// Work with a QoS of its own, submitted straight to a global queue, runs on that
    /// queue for `dispatchPrecondition`, as on libdispatch (it was judged by its own QoS's
    /// global queue, and a precondition on the queue it was submitted to trapped).
    @Test func workWithItsOwnQoSRunsOnTheGlobalQueueItWasSubmittedTo() {
        let seen = DispatchSemaphore(value: 0)
        let answers = TestLog<Bool>()
        for flags: DispatchWorkItemFlags in [[], .enforceQoS] {
            DispatchQueue.global(qos: .utility).async(qos: .userInitiated, flags: flags) {
                let onUtility = isRunning(on: DispatchQueue.global(qos: .utility), exclusively: false)
                let onOwn = isRunning(on: DispatchQueue.global(qos: .userInitiated), exclusively: false)
                answers.append(onUtility && !onOwn)
                seen.signal()
            }
            #expect(seen.wait(timeout: deadline()) == .success)
        }
        #expect(answers.values == [true, true])
    }

    /// `qos` reads as libdispatch reports it: the main queue and the default global queue
    /// have none of their own.
    @Test func queueQoSReadsAsLibdispatchReportsIt() {
        #expect(DispatchQueue.main.qos.qosClass == .unspecified)
        #expect(DispatchQueue.global().qos.qosClass == .unspecified)
        #expect(DispatchQueue.global(qos: .unspecified).qos.qosClass == .unspecified)
        #expect(DispatchQueue.global(qos: .userInitiated).qos.qosClass == .userInitiated)
        #expect(DispatchQueue.global(qos: .background).qos.qosClass == .background)
        #expect(DispatchQueue(label: "own", qos: .utility).qos.qosClass == .utility)
        // Without a QoS of its own, a queue reports the global queue it targets directly.
        #expect(DispatchQueue(label: "on utility", target: .global(qos: .utility)).qos.qosClass == .utility)
        let middle = DispatchQueue(label: "middle", target: .global(qos: .utility))
        #expect(DispatchQueue(label: "on a queue", target: middle).qos.qosClass == .unspecified)
    }

    /// The main queue and the global queues ignore suspend, resume and setTarget, as
    /// libdispatch's do (a suspended main queue hangs `main.sync` callers; the resume
    /// after it trapped as an over-resume, and setTarget on them trapped). In a child
    /// process: the old code's traps must fail this test, not end the runner.
    @Test func mainAndGlobalQueuesIgnoreSuspensionAndRetargeting() async {
        await #expect(processExitsWith: .success) {
            DispatchQueue.main.suspend()
            DispatchQueue.main.resume()
            DispatchQueue.main.resume()
            DispatchQueue.main.setTarget(queue: .global())
            let global = DispatchQueue.global(qos: .utility)
            global.suspend()
            global.setTarget(queue: .global(qos: .background))
            let ran = DispatchSemaphore(value: 0)
            global.async { ran.signal() }
            guard ran.wait(timeout: deadline()) == .success else { exit(2) }
            exit(global.qos.qosClass == .utility ? 0 : 4)
        }
    }

    @Test func valuesAreReleasedWhenTheQueueIsFreed() {
        final class Tracker: @unchecked Sendable {
            let flag = Atomic<Bool>(false)
            final class Finalizer: @unchecked Sendable {
                let tracker: Tracker
                init(_ tracker: Tracker) { self.tracker = tracker }
                deinit { tracker.flag.store(true, ordering: .releasing) }
            }
        }
        let tracker = Tracker()
        let key = DispatchSpecificKey<Tracker.Finalizer>()
        do {
            let queue = DispatchQueue(label: "with-context")
            queue.setSpecific(key: key, value: Tracker.Finalizer(tracker))
            queue.sync {}
        }
        #expect(waitUntil { tracker.flag.load(ordering: .acquiring) })
    }

    @Test func preconditionsHoldWhereTheyShould() {
        let serial = DispatchQueue(label: "pre-serial")
        let concurrent = DispatchQueue(label: "pre-concurrent", attributes: .concurrent)
        let child = DispatchQueue(label: "pre-child", target: serial)
        serial.sync {
            dispatchPrecondition(condition: .onQueue(serial))
            dispatchPrecondition(condition: .onQueueAsBarrier(serial))
            dispatchPrecondition(condition: .notOnQueue(concurrent))
        }
        concurrent.sync {
            dispatchPrecondition(condition: .onQueue(concurrent))
        }
        concurrent.sync(flags: .barrier) {
            dispatchPrecondition(condition: .onQueueAsBarrier(concurrent))
        }
        let done = DispatchSemaphore(value: 0)
        let onOvercommitRoot = TestLog<Bool>()
        child.async {
            dispatchPrecondition(condition: .onQueue(child))
            dispatchPrecondition(condition: .onQueue(serial))   // through the target
            // A serial queue on its default target runs on the overcommitting global queue,
            // as on libdispatch, not on `.global()` (a fresh-eyes review found it on both).
            dispatchPrecondition(condition: .notOnQueue(.global()))
            onOvercommitRoot.append(isRunning(on: DispatchQueue.overcommitRoot(for: .default), exclusively: false))
            done.signal()
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(onOvercommitRoot.values == [true])
        DispatchQueue.global(qos: .utility).async {
            dispatchPrecondition(condition: .onQueue(.global(qos: .utility)))
            dispatchPrecondition(condition: .notOnQueue(.global(qos: .userInteractive)))
            done.signal()
        }
        #expect(done.wait(timeout: deadline()) == .success)
        dispatchPrecondition(condition: .notOnQueue(serial))
    }

    /// Which global queue a queue's work runs on, for `dispatchPrecondition` and
    /// `dispatch_assert_queue`, as libdispatch's targets are: a serial queue with no target
    /// given is on the overcommitting global queue of its QoS, one given `.global()` on that
    /// queue, a concurrent queue on the plain global queue. (Conveyor schedules them all on
    /// the same pool; only the identity differs.)
    @Test(arguments: [false, true])
    func queuesRunOnTheGlobalQueueLibdispatchGivesThem(submitAsync: Bool) {
        func onQueues(_ queue: DispatchQueue, _ asks: [DispatchQueue]) -> [Bool] {
            let seen = TestLog<[Bool]>()
            let body: @Sendable () -> Void = { seen.append(asks.map { isRunning(on: $0, exclusively: false) }) }
            if submitAsync {
                let done = DispatchSemaphore(value: 0)
                queue.async { body(); done.signal() }
                _ = done.wait(timeout: deadline())
            } else {
                queue.sync(execute: body)
            }
            return seen.values.first ?? []
        }
        let plain = DispatchQueue.global(), utility = DispatchQueue.global(qos: .utility)
        let plainOvercommit = DispatchQueue.overcommitRoot(for: .default)
        let utilityOvercommit = DispatchQueue.overcommitRoot(for: .utility)
        let asks = [plain, plainOvercommit, utility, utilityOvercommit]
        #expect(onQueues(DispatchQueue(label: "serial"), asks) == [false, true, false, false])
        #expect(onQueues(DispatchQueue(label: "serial-utility", qos: .utility), asks) == [false, false, false, true])
        #expect(onQueues(DispatchQueue(label: "serial-on-global", target: .global()), asks) == [true, false, false, false])
        #expect(onQueues(DispatchQueue(label: "concurrent", attributes: .concurrent), asks) == [true, false, false, false])
        let child = DispatchQueue(label: "child", target: DispatchQueue(label: "parent", qos: .utility))
        #expect(onQueues(child, asks) == [false, false, false, true])
        // Work submitted straight to a global queue is on that queue only.
        #expect(onQueues(plain, asks) == [true, false, false, false])
    }
}

@Suite struct WorkItemTests {
    /// What stays allowed: a wait that timed out leaves the item to be waited for again,
    /// an item may run more than once when nobody waits, and one run may be observed by
    /// any number of notifications.
    @Test func aTimedOutWaitAllowsAnotherAndUnwatchedItemsRunAgain() {
        let queue = DispatchQueue(label: "held-then-run", attributes: .initiallyInactive)
        let runs = Counter()
        let item = DispatchWorkItem { runs.increment() }
        queue.async(execute: item)
        #expect(item.wait(timeout: .now() + .milliseconds(20)) == .timedOut)
        #expect(item.wait(timeout: .now() + .milliseconds(20)) == .timedOut)
        let notified = DispatchSemaphore(value: 0)
        item.notify(queue: .global()) { notified.signal() }
        item.notify(queue: .global()) { notified.signal() }
        queue.activate()
        #expect(item.wait(timeout: deadline()) == .success)
        #expect(notified.wait(timeout: deadline()) == .success)
        #expect(notified.wait(timeout: deadline()) == .success)
        let again = DispatchWorkItem { runs.increment() }
        again.perform()
        again.perform()
        #expect(runs.current == 3)
    }

    @Test func performRunsTheBlockAndWaitReturns() {
        let counter = Counter()
        let item = DispatchWorkItem { counter.increment() }
        item.perform()
        item.wait()   // once: a second wait traps, as on libdispatch (WorkItemMisuseTests)
        #expect(counter.current == 1)
    }

    @Test func asyncWorkItemNotifiesAndWaits() {
        let queue = DispatchQueue(label: "items")
        let counter = Counter()
        let item = DispatchWorkItem { counter.increment() }
        let notified = DispatchSemaphore(value: 0)
        item.notify(queue: .global()) { notified.signal() }
        queue.async(execute: item)
        #expect(item.wait(timeout: deadline()) == .success)
        #expect(notified.wait(timeout: deadline()) == .success)
        #expect(counter.current == 1)
        let late = DispatchSemaphore(value: 0)
        item.notify(queue: .global()) { late.signal() }   // after completion: runs at once
        #expect(late.wait(timeout: deadline()) == .success)
    }

    /// An item released without ever running delivers its notifications, cancelled or
    /// not, as libdispatch's block objects do when destroyed unperformed (a fresh-eyes
    /// review found them dropped). Only the notifications are delivered: the work never runs.
    @Test func anItemReleasedWithoutRunningStillNotifies() {
        let notified = DispatchSemaphore(value: 0)
        let counter = Counter()
        do {
            let plain = DispatchWorkItem { counter.increment() }
            plain.notify(queue: .global()) { notified.signal() }
            let cancelled = DispatchWorkItem { counter.increment() }
            cancelled.notify(queue: DispatchQueue(label: "notify-target")) { notified.signal() }
            cancelled.cancel()
        }
        #expect(notified.wait(timeout: deadline()) == .success)
        #expect(notified.wait(timeout: deadline()) == .success)
        #expect(counter.current == 0)
    }

    /// `.enforceQoS` wins over `.inheritQoS` when both are given (block.h: inherit "is
    /// ignored if DISPATCH_BLOCK_ENFORCE_QOS_CLASS is also passed"; a fresh-eyes review
    /// found the item's QoS dropped); `.inheritQoS` alone and `.noQoS` defer to the queue.
    @Test func enforceQoSWinsOverInheritQoS() {
        #expect(DispatchWorkItemFlags([.inheritQoS, .enforceQoS]).band(for: .userInitiated) == DispatchQoS.QoSClass.userInitiated.band)
        #expect(DispatchWorkItemFlags.enforceQoS.band(for: .utility) == DispatchQoS.QoSClass.utility.band)
        #expect(DispatchWorkItemFlags.inheritQoS.band(for: .userInitiated) == nil)
        #expect(DispatchWorkItemFlags.noQoS.band(for: .userInitiated) == nil)
    }

    @Test func waitTimesOutWhileTheItemIsHeldBack() {
        let queue = DispatchQueue(label: "held", attributes: .initiallyInactive)
        let item = DispatchWorkItem {}
        queue.async(execute: item)
        #expect(item.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(item.wait(wallTimeout: .now() + .milliseconds(50)) == .timedOut)
        queue.activate()
        #expect(item.wait(timeout: deadline()) == .success)
    }

    @Test func aCancelledItemNeverRuns() {
        let queue = DispatchQueue(label: "cancel", attributes: .initiallyInactive)
        let counter = Counter()
        let item = DispatchWorkItem { counter.increment() }
        queue.async(execute: item)
        item.cancel()
        #expect(item.isCancelled)
        queue.activate()
        #expect(item.wait(timeout: deadline()) == .success)
        queue.sync {}
        #expect(counter.current == 0)
        // Performed directly, a cancelled item is skipped too. (Not `item`: running an item
        // again after a wait for it returned traps, as on libdispatch.)
        let skipped = DispatchWorkItem { counter.increment() }
        skipped.cancel()
        skipped.perform()
        #expect(counter.current == 0)
    }

    @Test func barrierWorkItemRunsAlone() {
        let queue = DispatchQueue(label: "item-barrier", attributes: .concurrent)
        let running = Atomic<Int>(0)
        let sawOthers = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<200 {
            queue.async(group: group) {
                running.wrappingAdd(1, ordering: .sequentiallyConsistent)
                for _ in 0..<100 { _ = running.load(ordering: .relaxed) }
                running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            }
        }
        let barrier = DispatchWorkItem(flags: .barrier) {
            if running.load(ordering: .sequentiallyConsistent) != 0 { sawOthers.store(true, ordering: .relaxed) }
        }
        queue.async(group: group, execute: barrier)
        for _ in 0..<200 {
            queue.async(group: group) {
                running.wrappingAdd(1, ordering: .sequentiallyConsistent)
                running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            }
        }
        #expect(group.wait(timeout: deadline()) == .success)
        let overlapped = sawOthers.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    @Test func syncWorkItem() {
        let queue = DispatchQueue(label: "sync-item")
        let counter = Counter()
        queue.sync(execute: DispatchWorkItem { counter.increment() })
        #expect(counter.current == 1)
    }
}
