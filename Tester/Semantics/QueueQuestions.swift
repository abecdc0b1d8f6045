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
#if canImport(Glibc)
import Glibc
#endif

/// Queues: labels, QoS, identity of the global queues, queue-specific values, `sync`,
/// inactive queues, `concurrentPerform` at its edges.
enum QueueQuestions {
    struct Failure: Error {}
    static let key = DispatchSpecificKey<Int>()
    static let otherKey = DispatchSpecificKey<String>()

    static func ask() {
        answer("main label", DispatchQueue.main.label)
        let classes: [(String, DispatchQoS.QoSClass)] = [
            ("background", .background), ("utility", .utility), ("default", .default),
            ("userInitiated", .userInitiated), ("userInteractive", .userInteractive), ("unspecified", .unspecified),
        ]
        for (name, qosClass) in classes {
            answer("global(\(name)) label", DispatchQueue.global(qos: qosClass).label)
            answer("global(\(name)).qos", DispatchQueue.global(qos: qosClass).qos.qosClass)
            answer("global(\(name)) is global(\(name))", DispatchQueue.global(qos: qosClass) === DispatchQueue.global(qos: qosClass))
        }
        let priorities: [(String, DispatchQueue.GlobalQueuePriority)] = [("high", .high), ("default", .default), ("low", .low), ("background", .background)]
        for (name, priority) in priorities {
            answer("global(priority .\(name)) label", DispatchQueue.global(priority: priority).label)
        }
        answer("global() is global(default)", DispatchQueue.global() === DispatchQueue.global(qos: .default))
        answer("global(unspecified) is global(default)", DispatchQueue.global(qos: .unspecified) === DispatchQueue.global(qos: .default))
        answer("main.qos", DispatchQueue.main.qos.qosClass)
        answer("empty label", "[\(DispatchQueue(label: "").label)]")
        answer("label kept", DispatchQueue(label: "a.b.c").label)
        answer("queue qos unspecified", DispatchQueue(label: "q").qos.qosClass)
        answer("queue qos utility", DispatchQueue(label: "q", qos: .utility).qos.qosClass)
        answer("queue qos (utility, -3)", DispatchQueue(label: "q", qos: DispatchQoS(qosClass: .utility, relativePriority: -3)).qos.relativePriority)
        for priority in [-20, -15, 3] {
            let qos = DispatchQueue(label: "q", qos: DispatchQoS(qosClass: .utility, relativePriority: priority)).qos
            answer("queue qos (utility, \(priority))", "\(qos.qosClass) \(qos.relativePriority)")
        }
        answer("concurrent queue qos", DispatchQueue(label: "q", qos: .userInitiated, attributes: .concurrent).qos.qosClass)

        // Queue-specific values.
        let target = DispatchQueue(label: "target")
        let queue = DispatchQueue(label: "queue", target: target)
        answer("getSpecific outside any queue", DispatchQueue.getSpecific(key: key) as Any)
        target.setSpecific(key: key, value: 1)
        answer("getSpecific through the target", queue.sync { DispatchQueue.getSpecific(key: key) } as Any)
        answer("instance getSpecific of a queue without one", queue.getSpecific(key: key) as Any)
        answer("instance getSpecific of the target", target.getSpecific(key: key) as Any)
        queue.setSpecific(key: key, value: 2)
        answer("getSpecific on the queue", queue.sync { DispatchQueue.getSpecific(key: key) } as Any)
        answer("getSpecific other key", queue.sync { DispatchQueue.getSpecific(key: otherKey) } as Any)
        queue.setSpecific(key: key, value: nil)
        answer("getSpecific after removing the queue's", queue.sync { DispatchQueue.getSpecific(key: key) } as Any)
        answer("getSpecific in a sync from inside another queue",
               DispatchQueue(label: "outer").sync { queue.sync { DispatchQueue.getSpecific(key: key) } } as Any)
        answer("getSpecific of the global queue", DispatchQueue.global().sync { DispatchQueue.getSpecific(key: key) } as Any)

        // sync.
        answer("sync returns", DispatchQueue(label: "s").sync { 42 })
        answer("sync on a global queue returns", DispatchQueue.global().sync { 7 })
        answer("sync rethrows", { () -> String in
            do { try DispatchQueue(label: "s").sync { throw Failure() }; return "no error" } catch { return "\(type(of: error))" }
        }())
        answer("barrier sync on a concurrent queue returns",
               DispatchQueue(label: "c", attributes: .concurrent).sync(flags: .barrier) { "barrier" })
        answer("sync on the calling thread", { () -> Bool in
            let caller = pthread_self()
            return DispatchQueue(label: "s").sync { pthread_equal(caller, pthread_self()) != 0 }
        }())

        // Inactive queues.
        let inactive = DispatchQueue(label: "inactive", attributes: .initiallyInactive)
        let ran = DispatchSemaphore(value: 0)
        inactive.async { ran.signal() }
        answer("inactive queue ran a block", ran.wait(timeout: .now() + .milliseconds(20)) == .success)
        let newTarget = DispatchQueue(label: "new target")
        newTarget.setSpecific(key: key, value: 9)
        inactive.setTarget(queue: newTarget)
        inactive.activate()
        answer("activated queue ran it", ran.wait(timeout: .now() + 5) == .success)
        answer("activated queue's new target", inactive.sync { DispatchQueue.getSpecific(key: key) } as Any)
        let suspended = DispatchQueue(label: "suspended")
        suspended.suspend()
        suspended.async { ran.signal() }
        answer("suspended queue ran a block", ran.wait(timeout: .now() + .milliseconds(20)) == .success)
        suspended.resume()
        answer("resumed queue ran it", ran.wait(timeout: .now() + 5) == .success)

        // concurrentPerform.
        answer("concurrentPerform(0) calls", { () -> Int in
            let calls = Counter()
            DispatchQueue.concurrentPerform(iterations: 0) { _ in calls.add() }
            return calls.value
        }())
        answer("concurrentPerform(1) on the caller", { () -> Bool in
            let caller = pthread_self()
            let same = Counter()
            DispatchQueue.concurrentPerform(iterations: 1) { _ in if pthread_equal(caller, pthread_self()) != 0 { same.add() } }
            return same.value == 1
        }())
        answer("concurrentPerform(100) indices", { () -> Int in
            let sum = Counter()
            DispatchQueue.concurrentPerform(iterations: 100) { sum.add($0) }
            return sum.value
        }())
    }
}
