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

/// Where a source's handlers fall among the blocks of its (serial) target queue when work
/// for the source arrives while a handler runs: libdispatch delivers a source's
/// registration, the event pending then and a cancellation in one pass, before blocks
/// submitted meanwhile, and events merged meanwhile after them. Each order is asked 200
/// times; the answer is "all", "none" or "some".
enum SourceOrderQuestions {
    /// The toolchain's source types are not Sendable (Conveyor's are).
    final class Box: @unchecked Sendable {
        var source: (any DispatchSourceUserDataAdd)?
    }

    /// Counts the rounds in which `round` returns true, over 200.
    static func rounds(_ round: () -> Bool) -> String {
        let count = (0..<200).filter { _ in round() }.count
        return count == 200 ? "all" : count == 0 ? "none" : "some"
    }

    static func ask() {
        let queue = DispatchQueue(label: "source orders")
        answer("data merged in the event handler, second event before a block it submitted first", rounds {
            let log = EventLog()
            let box = Box()
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            box.source = source
            source.setEventHandler {
                log.append("event")
                if log.values.count == 1 {
                    queue.async { log.append("block") }
                    box.source?.add(data: 1)
                }
            }
            source.activate()
            source.add(data: 1)
            queue.sync {}
            queue.sync {}
            source.cancel()
            box.source = nil
            return log.values == ["event", "event", "block"]
        })
        answer("cancel in the event handler, cancel handler before a block submitted after it", rounds {
            let log = EventLog()
            let box = Box()
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            box.source = source
            source.setCancelHandler { log.append("cancel") }
            source.setEventHandler {
                box.source?.cancel()
                queue.async { log.append("block") }
            }
            source.activate()
            source.add(data: 1)
            queue.sync {}
            queue.sync {}
            box.source = nil
            return log.values == ["cancel", "block"]
        })
        answer("cancel from another thread as the event handler ends, cancel handler before a later sync", rounds {
            let cancelled = EventLog()
            let fired = DispatchSemaphore(value: 0)
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            source.setCancelHandler { cancelled.append("cancel") }
            source.setEventHandler { fired.signal() }
            source.activate()
            source.add(data: 1)
            _ = fired.wait(timeout: .now() + 5)
            source.cancel()
            return queue.sync { cancelled.values == ["cancel"] }
        })
        answer("data pending at activation, event before a block the registration handler submitted", rounds {
            let log = EventLog()
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            source.setRegistrationHandler { queue.async { log.append("block") } }
            source.setEventHandler { log.append("event") }
            source.add(data: 1)
            source.activate()
            queue.sync {}
            queue.sync {}
            source.cancel()
            return log.values == ["event", "block"]
        })
        let key = DispatchSpecificKey<Int>()
        let first = DispatchQueue(label: "first target")
        let second = DispatchQueue(label: "second target")
        first.setSpecific(key: key, value: 1)
        second.setSpecific(key: key, value: 2)
        answer("setTarget in the registration handler, the pending event still on the first target", rounds {
            let seen = EventLog()
            let source = DispatchSource.makeUserDataAddSource(queue: first)
            let box = Box()
            box.source = source
            source.setRegistrationHandler { (box.source as? DispatchSource)?.setTarget(queue: second) }
            source.setEventHandler { seen.append("\(DispatchQueue.getSpecific(key: key) ?? 0)") }
            source.add(data: 1)
            source.activate()
            let values = seen.await(1)
            source.cancel()
            box.source = nil
            return values == ["1"]
        })
        answer("cancel in the registration handler, cancel handler before a block it submitted first", rounds {
            let log = EventLog()
            let box = Box()
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            box.source = source
            source.setRegistrationHandler {
                queue.async { log.append("block") }
                box.source?.cancel()
            }
            source.setCancelHandler { log.append("cancel") }
            source.activate()
            queue.sync {}
            queue.sync {}
            box.source = nil
            return log.values == ["cancel", "block"]
        })
    }
}
