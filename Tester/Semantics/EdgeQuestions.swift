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

/// Calls that mean little on some queues: barriers, suspension and specific values on
/// global queues, activation of inactive queues, cancelling a running item.
enum EdgeQuestions {
    static let key = DispatchSpecificKey<Int>()

    static func ask() {
        let global = DispatchQueue.global(qos: .utility)
        let release = DispatchSemaphore(value: 0)
        let barrierRan = DispatchSemaphore(value: 0)
        let first = DispatchSemaphore(value: 0)
        global.async {
            first.signal()
            _ = release.wait(timeout: .now() + 10)
        }
        _ = first.wait(timeout: .now() + 5)
        global.async(flags: .barrier) { barrierRan.signal() }
        answer("a barrier on a global queue runs while another block of it runs",
               barrierRan.wait(timeout: .now() + 5) == .success)
        release.signal()

        global.suspend()
        let afterSuspend = DispatchSemaphore(value: 0)
        global.async { afterSuspend.signal() }
        answer("a global queue runs blocks after suspend()", afterSuspend.wait(timeout: .now() + 5) == .success)
        global.resume()

        global.setSpecific(key: key, value: 3)
        answer("specific value set on a global queue, read in its block", global.sync { DispatchQueue.getSpecific(key: key) } as Any)
        answer("specific value set on a global queue, read from it", global.getSpecific(key: key) as Any)

        // Not asked: resume() of an inactive queue never suspended, which libdispatch traps
        // on (over-resume) and Conveyor takes as activate(), as both do for sources.
        let ran = DispatchSemaphore(value: 0)
        let held = DispatchQueue(label: "suspended while inactive", attributes: .initiallyInactive)
        held.async { ran.signal() }
        held.suspend()
        held.activate()
        answer("an inactive queue suspended, then activated, runs its blocks", ran.wait(timeout: .now() + .milliseconds(50)) == .success)
        held.resume()
        answer("and after resume()", ran.wait(timeout: .now() + 5) == .success)

        let twice = DispatchQueue(label: "activated twice", attributes: .initiallyInactive)
        twice.activate()
        twice.activate()
        answer("activate() twice, then a sync", twice.sync { "ran" })
        let active = DispatchQueue(label: "active")
        active.activate()
        answer("activate() of an active queue, then a sync", active.sync { "ran" })

        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = EventLog()
        let item = DispatchWorkItem {
            started.signal()
            _ = proceed.wait(timeout: .now() + 5)
            finished.append("finished")
        }
        let queue = DispatchQueue(label: "items")
        queue.async(execute: item)
        _ = started.wait(timeout: .now() + 5)
        item.cancel()
        answer("an item cancelled while it runs isCancelled", item.isCancelled)
        let notified = DispatchSemaphore(value: 0)
        item.notify(queue: queue) { notified.signal() }
        proceed.signal()
        answer("an item cancelled while it runs, wait, then it had finished",
               "\(item.wait(timeout: .now() + 5)) \(finished.values)")
        answer("an item cancelled while it runs, its notify runs", notified.wait(timeout: .now() + 5) == .success)
    }
}
