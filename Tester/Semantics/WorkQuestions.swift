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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif

/// Semaphores, groups and work items: what each call returns at the edges.
enum WorkQuestions {
    static func ask() {
        let noWaiter = DispatchSemaphore(value: 0)
        answer("semaphore signal with no waiter", noWaiter.signal())
        answer("semaphore wait after that signal", noWaiter.wait(timeout: .now()))
        let one = DispatchSemaphore(value: 1)
        answer("semaphore(1) wait now", one.wait(timeout: .now()))
        answer("semaphore(1) second wait now", one.wait(timeout: .now()))
        answer("semaphore(1) wallTimeout now", one.wait(wallTimeout: .now()))
        one.signal()
        answer("semaphore(0) wait 1 ms", DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1)))

        let group = DispatchGroup()
        answer("empty group wait now", group.wait(timeout: .now()))
        answer("empty group wallTimeout now", group.wait(wallTimeout: .now()))
        let notified = DispatchSemaphore(value: 0)
        group.notify(queue: .global()) { notified.signal() }
        answer("empty group notify runs", notified.wait(timeout: .now() + 5))
        group.enter()
        answer("entered group wait now", group.wait(timeout: .now()))
        group.leave()
        answer("left group wait now", group.wait(timeout: .now()))
        let queue = DispatchQueue(label: "work")
        group.enter()
        group.notify(queue: queue) { notified.signal() }
        answer("notify before leave ran", notified.wait(timeout: .now() + .milliseconds(20)))
        group.leave()
        answer("notify after leave ran", notified.wait(timeout: .now() + 5))

        let cancelled = DispatchWorkItem { answer("cancelled item ran", true) }
        cancelled.cancel()
        answer("cancelled item isCancelled", cancelled.isCancelled)
        cancelled.perform()
        answer("cancelled item perform() done", true)
        answer("never-submitted cancelled item wait", cancelled.wait(timeout: .now() + .milliseconds(20)))

        let submittedCancelled = DispatchWorkItem { answer("submitted cancelled item ran", true) }
        submittedCancelled.cancel()
        queue.async(execute: submittedCancelled)
        submittedCancelled.notify(queue: queue) { notified.signal() }
        answer("submitted cancelled item notify", notified.wait(timeout: .now() + 5))
        answer("submitted cancelled item wait", submittedCancelled.wait(timeout: .now() + 5))

        let performed = DispatchWorkItem {}
        performed.perform()
        answer("performed item wait now", performed.wait(timeout: .now()))
        let late = DispatchWorkItem {}
        late.perform()
        late.notify(queue: queue) { notified.signal() }
        answer("notify after perform runs", notified.wait(timeout: .now() + 5))
        late.cancel()
        answer("cancel after perform isCancelled", late.isCancelled)
        let fresh = DispatchWorkItem {}
        answer("fresh item isCancelled", fresh.isCancelled)
        answer("fresh item wait", fresh.wait(timeout: .now() + .milliseconds(20)))
        fresh.perform()

        let queued = DispatchWorkItem { notified.signal() }
        queue.async(execute: queued)
        answer("queued item ran", notified.wait(timeout: .now() + 5))
        answer("queued item wait", queued.wait(timeout: .now() + 5))

        let inGroup = DispatchGroup()
        let item = DispatchWorkItem {}
        queue.async(group: inGroup, execute: item)
        answer("group wait for an item in it", inGroup.wait(timeout: .now() + 5))
        let cancelledInGroup = DispatchWorkItem {}
        cancelledInGroup.cancel()
        queue.async(group: inGroup, execute: cancelledInGroup)
        answer("group wait for a cancelled item in it", inGroup.wait(timeout: .now() + 5))
    }
}
