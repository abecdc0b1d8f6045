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
import Testing

/// Each misuse runs in a child process (a Swift Testing exit test) that must die with the
/// message naming the mistake.
@Suite struct MisuseTrapTests {
    private func expectTrap(_ message: String, result: ExitTest.Result?) {
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains(message), "stderr was: \(stderr)")
    }

    @Test func overResumeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "over")
            queue.resume()
        }
        expectTrap("over-resume of queue 'over'", result: result)
    }

    @Test func syncOnTheCurrentSerialQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "self-sync")
            queue.sync { queue.sync {} }
        }
        expectTrap("sync called on queue 'self-sync' already owned by the current thread", result: result)
    }

    @Test func syncOnAQueueTargetingTheCurrentOneTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let parent = DispatchQueue(label: "parent")
            let child = DispatchQueue(label: "child", target: parent)
            let done = DispatchSemaphore(value: 0)
            parent.async { child.sync {}; done.signal() }
            _ = done.wait(timeout: .now() + 30)
        }
        expectTrap("through its target 'parent'", result: result)
    }

    @Test func barrierSyncFromInsideTheConcurrentQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "conc", attributes: .concurrent)
            queue.sync { queue.sync(flags: .barrier) {} }
        }
        expectTrap("sync called on queue 'conc' already owned", result: result)
    }

    @Test func releasingASuspendedQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            do {
                let queue = DispatchQueue(label: "dropped-suspended")
                queue.suspend()
            }
        }
        expectTrap("release of a suspended queue 'dropped-suspended'", result: result)
    }

    @Test func releasingAnInactiveQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            do {
                _ = DispatchQueue(label: "dropped-inactive", attributes: .initiallyInactive)
            }
        }
        expectTrap("release of an inactive queue 'dropped-inactive'", result: result)
    }

    @Test func setTargetOnAnActiveQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "active")
            queue.setTarget(queue: DispatchQueue(label: "other"))
        }
        expectTrap("setTarget(queue:) called on active queue 'active'", result: result)
    }

    @Test func targetCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let a = DispatchQueue(label: "cycle-a", attributes: .initiallyInactive)
            let b = DispatchQueue(label: "cycle-b", target: a)
            a.setTarget(queue: b)
        }
        expectTrap("would make queue 'cycle-a' target itself", result: result)
    }

    @Test func unbalancedLeaveTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DispatchGroup().leave()
        }
        expectTrap("unbalanced call to DispatchGroup.leave()", result: result)
    }

    @Test func negativeSemaphoreTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DispatchSemaphore(value: -1)
        }
        expectTrap("DispatchSemaphore created with a negative value", result: result)
    }

    @Test func semaphoreReleasedWhileInUseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            do {
                let semaphore = DispatchSemaphore(value: 1)
                semaphore.wait()
            }
        }
        expectTrap("DispatchSemaphore released while in use", result: result)
    }

    @Test func dispatchMainOffTheMainThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { dispatchMain() }
            _ = done.wait(timeout: .now() + 30)
        }
        expectTrap("dispatchMain() must be called on the main thread", result: result)
    }

    @Test func failedPreconditionsTrap() async {
        let onQueue = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            dispatchPrecondition(condition: .onQueue(DispatchQueue(label: "elsewhere")))
        }
        expectTrap("not running on queue 'elsewhere'", result: onQueue)
        let notOnQueue = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "here")
            queue.sync { dispatchPrecondition(condition: .notOnQueue(queue)) }
        }
        expectTrap("running on queue 'here'", result: notOnQueue)
        let asBarrier = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "shared", attributes: .concurrent)
            queue.sync { dispatchPrecondition(condition: .onQueueAsBarrier(queue)) }
        }
        expectTrap("not running on queue 'shared' as a barrier", result: asBarrier)
    }

    // libdispatch lets a work item (a block object) be waited for once, and traps when one
    // that ran more than once is waited for or observed, or when one runs again after a
    // wait for it returned (its `dispatch_block_wait`, `dispatch_block_notify` and block
    // invoke checks). A fresh-eyes review found Conveyor returning instead.

    @Test func waitingTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = DispatchWorkItem {}
            DispatchQueue.global().async(execute: item)
            item.wait()
            item.wait()
        }
        expectTrap("may not be waited for more than once", result: result)
    }

    @Test func twoWaitersAtOnceTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = DispatchWorkItem {}
            let queue = DispatchQueue(label: "held", attributes: .initiallyInactive)
            queue.async(execute: item)   // never runs: the queue stays inactive
            let firstIsWaiting = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                firstIsWaiting.signal()
                item.wait()
            }
            firstIsWaiting.wait()
            // The first waiter may not have reached its wait yet: wait with a timeout until
            // the trap comes from one of the two (a timed-out wait allows the next one).
            while true { _ = item.wait(timeout: .now() + .milliseconds(10)) }
        }
        expectTrap("may not be waited for more than once", result: result)
    }

    @Test func waitingForAnItemThatRanTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = DispatchWorkItem {}
            item.perform()
            item.perform()
            item.wait()
        }
        expectTrap("wait for a work item (block object) that ran more than once", result: result)
    }

    @Test func runningAgainAfterAWaitTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = DispatchWorkItem {}
            item.perform()
            item.wait()
            item.perform()
        }
        expectTrap("ran again after a wait for it returned", result: result)
    }

    @Test func notifyOnAnItemThatRanTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let item = DispatchWorkItem {}
            item.perform()
            item.perform()
            item.notify(queue: .global()) {}
        }
        expectTrap("notify on a work item (block object) that ran more than once", result: result)
    }
}
