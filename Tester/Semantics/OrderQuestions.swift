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

/// Orders GCD fixes: a notify on an empty group or a finished item submitted at once, FIFO
/// between `async` and `sync`, barriers between what came before and after, an inactive
/// queue's target changed.
enum OrderQuestions {
    static let key = DispatchSpecificKey<Int>()

    static func ask() {
        let serial = DispatchQueue(label: "order")
        let trail = EventLog()
        let group = DispatchGroup()
        group.notify(queue: serial) { trail.append("notify") }
        serial.async { trail.append("async") }
        serial.sync { trail.append("sync") }
        answer("notify on an empty group, then async, then sync", trail.values)

        let item = DispatchWorkItem {}
        item.perform()
        let afterItem = EventLog()
        item.notify(queue: serial) { afterItem.append("notify") }
        serial.async { afterItem.append("async") }
        serial.sync {}
        answer("notify of a performed item, then async", afterItem.values)

        let waves = EventLog()
        let gate = DispatchSemaphore(value: 0)
        serial.async { gate.wait(); waves.append("first") }
        serial.async { waves.append("second") }
        let syncDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            serial.sync { waves.append("sync") }
            syncDone.signal()
        }
        gate.signal()
        _ = syncDone.wait(timeout: .now() + 5)
        serial.sync {}
        answer("async, async, sync from another thread", waves.values)

        let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
        let barrierTrail = EventLog()
        let earlier = DispatchGroup()
        for index in 0..<4 { concurrent.async(group: earlier) { barrierTrail.append("before \(index)") } }
        concurrent.async(flags: .barrier) { barrierTrail.append("barrier") }
        for index in 0..<4 { concurrent.async(group: earlier) { barrierTrail.append("after \(index)") } }
        _ = earlier.wait(timeout: .now() + 5)
        let entries = barrierTrail.values
        let barrierAt = entries.firstIndex(of: "barrier") ?? -1
        answer("a barrier runs after the blocks before it and before those after",
               entries.count == 9 && entries[..<barrierAt].allSatisfy { $0.hasPrefix("before") }
                   && entries[(barrierAt + 1)...].allSatisfy { $0.hasPrefix("after") })
        answer("sync barrier on a concurrent queue sees every earlier block done", { () -> Int in
            let done = Counter()
            for _ in 0..<8 { concurrent.async { done.add() } }
            return concurrent.sync(flags: .barrier) { done.value }
        }())

        // (An active queue's target may not change through the Swift API: libdispatch traps,
        // as the Swift overlay makes every queue with a target, and so does Conveyor.)
        let target = DispatchQueue(label: "target")
        target.setSpecific(key: key, value: 5)
        let inactive = DispatchQueue(label: "retargeted", attributes: .initiallyInactive, target: target)
        let other = DispatchQueue(label: "other")
        inactive.setTarget(queue: other)
        inactive.activate()
        answer("specific after an inactive queue's target changed", inactive.sync { DispatchQueue.getSpecific(key: key) } as Any)

        answer("nested concurrentPerform indices", { () -> Int in
            let sum = Counter()
            DispatchQueue.concurrentPerform(iterations: 4) { outer in
                DispatchQueue.concurrentPerform(iterations: 4) { inner in sum.add(outer * 4 + inner) }
            }
            return sum.value
        }())
        answer("concurrentPerform inside sync", serial.sync { () -> Int in
            let sum = Counter()
            DispatchQueue.concurrentPerform(iterations: 10) { sum.add($0) }
            return sum.value
        })
    }
}
