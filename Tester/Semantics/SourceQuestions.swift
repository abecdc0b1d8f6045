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

/// Dispatch sources: handles, masks, data, and which handlers run around cancellation.
enum SourceQuestions {
    /// Activates `source`; its first event logs `name` and its data, runs `then` and
    /// cancels it. The log of that event and the cancel handler (each waited for
    /// `seconds` at most).
    static func firstEvent(of source: any DispatchSourceProtocol, named name: String, then: @escaping () -> Void = {},
                           data describe: @escaping @Sendable (UInt) -> String = { "\($0)" },
                           seconds: Double = 5) -> [String] {
        // The toolchain's source types are not Sendable (Conveyor's are); the handlers run
        // one at a time.
        final class Box: @unchecked Sendable {
            let source: any DispatchSourceProtocol
            let then: () -> Void
            init(_ source: any DispatchSourceProtocol, _ then: @escaping () -> Void) { self.source = source; self.then = then }
        }
        let log = EventLog()
        let box = Box(source, then)
        source.setEventHandler {
            log.append("\(name) \(describe(box.source.data))")
            box.then()
            box.source.cancel()
        }
        source.setCancelHandler { log.append("cancel") }
        source.activate()
        return log.await(2, seconds: seconds)
    }

    static func ask() {
        let queue = DispatchQueue(label: "sources")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        answer("timer handle, mask, data", "\(timer.handle) \(timer.mask) \(timer.data)")
        answer("timer isCancelled", timer.isCancelled)
        let timerLog = EventLog()
        timer.setEventHandler { timerLog.append("fire \(timer.data)") }
        timer.setCancelHandler { timerLog.append("cancel") }
        timer.schedule(deadline: .now(), repeating: .never)
        timer.activate()
        answer("one-shot timer", timerLog.await(1))
        answer("one-shot timer fires again", timerLog.changed.wait(timeout: .now() + .milliseconds(30)))
        timer.cancel()
        answer("one-shot timer cancelled", timerLog.await(1))
        answer("timer isCancelled after cancel", timer.isCancelled)

        let early = DispatchSource.makeUserDataAddSource(queue: queue)
        let earlyLog = EventLog()
        early.setRegistrationHandler { earlyLog.append("registration") }
        early.setEventHandler { earlyLog.append("event") }
        early.setCancelHandler { earlyLog.append("cancel") }
        early.cancel()
        early.activate()
        answer("cancelled before activation", earlyLog.await(1))

        let registered = DispatchSource.makeUserDataAddSource(queue: queue)
        let registeredLog = EventLog()
        registered.setRegistrationHandler { registeredLog.append("registration") }
        registered.setEventHandler { registeredLog.append("event \(registered.data)") }
        registered.setCancelHandler { registeredLog.append("cancel") }
        registered.add(data: 4)
        registered.activate()
        answer("registration, data merged before activation", registeredLog.await(2))
        registered.cancel()
        answer("then cancelled", registeredLog.await(1))
        registered.add(data: 1)
        answer("merge after cancel", registeredLog.changed.wait(timeout: .now() + .milliseconds(20)))
        answer("data outside a handler after cancel", registered.data)

        let suspended = DispatchSource.makeUserDataOrSource(queue: queue)
        let suspendedLog = EventLog()
        suspended.setEventHandler { suspendedLog.append("event \(suspended.data)") }
        suspended.activate()
        suspended.suspend()
        suspended.or(data: 1)
        suspended.or(data: 4)
        answer("suspended source ran its handler", suspendedLog.changed.wait(timeout: .now() + .milliseconds(20)))
        suspended.resume()
        answer("resumed source", suspendedLog.await(1))
        suspended.cancel()

        // A source the kernel does not watch (user data, a timer not scheduled) is cancelled
        // in order with its queue: the cancel handler runs before a later `sync` on it.
        for (name, make) in [("user-data source", { DispatchSource.makeUserDataAddSource(queue: queue) as any DispatchSourceProtocol }),
                             ("timer source never scheduled", { DispatchSource.makeTimerSource(queue: queue) as any DispatchSourceProtocol })] {
            var late = 0
            for _ in 0..<300 {
                let source = make()
                let cancelled = EventLog()
                source.setCancelHandler { cancelled.append("cancel") }
                source.activate()
                source.cancel()
                queue.sync { if cancelled.values.isEmpty { late += 1 } }
            }
            answer("\(name), cancel handler after the next sync, of 300", late == 0 ? "none" : "some")
        }

        let twice = DispatchSource.makeUserDataAddSource(queue: queue)
        let twiceLog = EventLog()
        twice.setEventHandler { twiceLog.append("event \(twice.data)") }
        twice.activate()
        twice.suspend()
        twice.suspend()
        twice.add(data: 2)
        twice.resume()
        answer("suspended twice, resumed once, ran its handler", twiceLog.changed.wait(timeout: .now() + .milliseconds(20)))
        twice.resume()
        answer("resumed twice", twiceLog.await(1))
        twice.cancel()

        let late = DispatchSource.makeUserDataAddSource(queue: queue)
        let lateLog = EventLog()
        late.activate()
        queue.sync {}
        late.setRegistrationHandler { lateLog.append("registration set after activation") }
        answer("registration handler set after activation", lateLog.changed.wait(timeout: .now() + 5) == .success
            ? lateLog.values : ["not run"])
        late.cancel()

        let unhandled = DispatchSource.makeUserDataAddSource(queue: queue)
        let unhandledLog = EventLog()
        unhandled.activate()
        unhandled.add(data: 3)
        queue.sync {}
        queue.sync {}
        unhandled.setEventHandler { unhandledLog.append("event \(unhandled.data)") }
        queue.sync {}
        unhandled.add(data: 4)
        answer("data merged with no handler, then a handler set", unhandledLog.await(1))
        unhandled.cancel()

        // Not asked: the data of a repeating timer's first event after a suspension, which
        // depends on what was delivered before it was suspended (both libraries answered
        // 1 and more than 1 on a busy machine).

        let never = DispatchSource.makeTimerSource(queue: queue)
        let neverLog = EventLog()
        never.setEventHandler { neverLog.append("fired") }
        never.schedule(deadline: .distantFuture)
        never.activate()
        answer("timer at distantFuture fired", neverLog.changed.wait(timeout: .now() + .milliseconds(20)))
        never.cancel()

        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { answer("pipe", "failed"); return }
        _ = [UInt8](repeating: 1, count: 5).withUnsafeBytes { Glibc.write(descriptors[1], $0.baseAddress, 5) }
        let read = DispatchSource.makeReadSource(fileDescriptor: descriptors[0], queue: queue)
        answer("read source handle is the descriptor", read.handle == UInt(descriptors[0]))
        answer("read source mask", read.mask)
        let readEnd = descriptors[0]
        answer("read source on 5 bytes", firstEvent(of: read, named: "readable") {
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = Glibc.read(readEnd, &buffer, 64)
        })
        let write = DispatchSource.makeWriteSource(fileDescriptor: descriptors[1], queue: queue)
        // The space left in the pipe: its size depends on the machine.
        answer("write source on an empty pipe", firstEvent(of: write, named: "writable", data: { $0 > 1 ? "more than 1" : "\($0)" }))
        close(descriptors[0])
        close(descriptors[1])
        // Not asked: a read source on a pipe whose writer has closed (both answer "readable
        // 0"), which crashes libdispatch's event loop (`_dispatch_event_loop_drain`) about
        // one run in fifteen, as the composition tester sees too.
    }
}
