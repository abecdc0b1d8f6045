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

extension Program: CustomStringConvertible {
    var description: String {
        var lines = ["program \(seed) (\(api.rawValue) API)"]
        for queue in queues {
            let specific = queue.specific ? ", specific" : ""
            if queue.main { lines.append("  q\(queue.index): main\(specific)"); continue }
            if queue.global { lines.append("  q\(queue.index): global(qos \(queue.qos))"); continue }
            let kind = queue.serial ? "serial" : "concurrent"
            let target = queue.target.map { "q\($0)" } ?? "global(qos \(queue.qos))"
            let width = queue.width.map { ", width \($0)" } ?? ""
            lines.append("  q\(queue.index): \(kind)\(width) -> \(target)\(queue.inactive ? ", inactive" : "")\(specific)")
        }
        for (index, ops) in threads.enumerated() {
            lines.append("  thread \(index):")
            for op in ops { Program.describe(op, indent: "    ", into: &lines) }
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ op: Op, indent: String, into lines: inout [String]) {
        func nested(_ head: String, _ body: [Op]) {
            lines.append(indent + head + (body.isEmpty ? "" : " {"))
            for inner in body { describe(inner, indent: indent + "  ", into: &lines) }
            if !body.isEmpty { lines.append(indent + "}") }
        }
        switch op {
        case let .async(queue, barrier, body, qos):
            let given = qos.map { ", qos \($0.qos)" + ($0.flag == .none ? "" : ", \($0.flag)") } ?? ""
            nested("async(q\(queue)\(barrier ? ", barrier" : "")\(given))", body)
        case let .sync(queue, barrier, body): nested("sync(q\(queue)\(barrier ? ", barrier" : ""))", body)
        case let .after(queue, microseconds, body): nested("asyncAfter(q\(queue), \(microseconds) us)", body)
        case let .fanOut(queue, members, notify, wait):
            lines.append(indent + "group: \(members) x async(q\(queue))" + (notify.map { ", notify(q\($0))" } ?? "") + (wait ? ", wait" : ""))
        case let .groupWaves(queue, waves, notify, manual, waitBetween):
            lines.append(indent + "one group: waves of \(waves.map(String.init).joined(separator: ", ")) x "
                         + (manual ? "enter, async(q\(queue)) { leave }" : "async(q\(queue), group)")
                         + ", notify(q\(notify)) after each" + (waitBetween ? ", wait after each" : ""))
        case let .workItem(queue, barrier, cancel, notify, wait):
            lines.append(indent + "workItem(q\(queue)\(barrier ? ", barrier" : ""))" + (cancel ? ", cancel first" : "")
                         + (notify.map { ", notify(q\($0))" } ?? "") + (wait ? ", wait" : ""))
        case let .perform(iterations, queue, every):
            lines.append(indent + "concurrentPerform(\(iterations))" + (queue.map { ", every \(every): async(q\($0))" } ?? ""))
        case let .applyOn(queue, iterations):
            lines.append(indent + "dispatch_apply(\(iterations)) on q\(queue)")
        case let .timer(queue, microseconds, ticks): lines.append(indent + "timer(q\(queue), every \(microseconds) us, \(ticks) ticks)")
        case let .dataSource(queue, merges): lines.append(indent + "dataAddSource(q\(queue), \(merges) merges)")
        case let .pipe(queue, chunks, bytes, suspendSource):
            lines.append(indent + "readSource(q\(queue)) on a pipe\(suspendSource ? ", suspended" : ""), \(chunks) x write(\(bytes) bytes), close"
                         + (suspendSource ? ", resume" : ""))
        case let .writeSource(queue, bytes):
            lines.append(indent + "writeSource(q\(queue)) filling a 4 KiB pipe with \(bytes) bytes, cancel, close; the thread reads")
        case let .channel(queue, chunks, bytes, highWater, writeQueue, keepChannel):
            lines.append(indent + "channel(q\(queue))" + (highWater.map { ", high water \($0)" } ?? "") + " reading a pipe, "
                         + "\(chunks) x \(writeQueue.map { "channel(q\($0)).write" } ?? "write")(\(bytes) bytes), close"
                         + (keepChannel ? ", reader closes at the end" : ", reader given up at once"))
        case let .suspend(queue, submissions): lines.append(indent + "suspend(q\(queue)), \(submissions) x async, resume")
        case let .semaphore(queue): lines.append(indent + "async(q\(queue)) { signal }, wait")
        case let .actorCalls(queue, calls, body): nested("actor on q\(queue): \(calls) awaited calls", body)
        case let .cancelQueued(queue, barrier, notify, wait):
            lines.append(indent + "suspend(q\(queue)), workItem(q\(queue)\(barrier ? ", barrier" : "")), async(q\(queue)), cancel"
                         + (notify.map { ", notify(q\($0))" } ?? "") + ", resume" + (wait ? ", wait" : ""))
        case let .cancelSuspended(queue, microseconds, pause):
            lines.append(indent + "timer(q\(queue), every \(microseconds) us), \(pause) us, suspend, cancel, \(pause) us, resume")
        case let .taskGroup(queue, children, sleep, cancelAfter, wait):
            lines.append(indent + "Task { task group: \(children) x (await a block of q\(queue)"
                         + (sleep.map { ", Task.sleep(\($0) us)" } ?? "") + ", actor call) }"
                         + (cancelAfter.map { ", cancelled by asyncAfter(q\(queue), \($0) us)" } ?? "") + (wait ? ", wait" : ""))
        case let .sourceStream(queue, ticks, microseconds, consumerStops):
            lines.append(indent + "timer(q\(queue), every \(microseconds) us) yielding \(ticks) values to an AsyncStream, finish; "
                         + "a task reads it" + (consumerStops.map { ", stops after \($0)" } ?? "") + "; termination cancels the timer")
        case let .executorTask(queue, steps, body): nested("Task(executorPreference: q\(queue)): \(steps) steps", body)
        case let .mainQueue(actor, body): nested(actor ? "Task { @MainActor }" : "async(main)", body)
        case let .crowd(queue, members, serial, barrier):
            lines.append(indent + "group: \(members) x async(q\(queue)) { sync\(barrier ? "(barrier)" : "") onto a new \(serial ? "serial" : "concurrent") queue }, wait")
        case let .busyPoster(queue, members, serial):
            lines.append(indent + "async(global) { async(\(serial ? "new serial queue" : "global")) { open gate }, stay runnable }, group: \(members) x async(q\(queue)) { wait for gate }, wait")
        case let .postAndWait(queue, members, targetQoS, target, kind):
            lines.append(indent + "group: \(members) x async(q\(queue)) { async(\(["a new serial queue", "a new concurrent queue", "global"][target.rawValue]), QoS \(targetQoS)) { }, "
                         + "wait for it on \(["a semaphore", "a group", "a work item"][kind.rawValue]) }, wait")
        case let .retarget(from, to, before, after, sync):
            lines.append(indent + "new serial queue -> q\(from), \(before) x async, retarget -> q\(to), \(after) x async"
                         + (sync ? ", sync" : "") + ", released at once")
        case let .timedWaits(queue, kind, members, spread, timeout):
            lines.append(indent + "\(members) x asyncAfter(q\(queue), over \(spread) us) \(["signalling a semaphore", "leaving a group", "running a work item"][kind.rawValue]); "
                         + "waits of \(timeout) us until done")
        case let .semaphoreLimit(queue, value, members, timed):
            lines.append(indent + "semaphore(\(value)): group: \(members) x async(q\(queue)) { every other posts async(q\(queue)); "
                         + "\(timed ? "timed waits" : "wait"), hold, signal }, wait")
        case let .dataMerges(queue, kind, merges, from, replaceAfter):
            lines.append(indent + "\(kind) data source(q\(queue)), \(merges) merges" + (from.map { " from blocks of q\($0)" } ?? "")
                         + (replaceAfter.map { ", event handler replaced after \($0)" } ?? "") + ", wait for all, cancel")
        case let .signals(queue, signal, sources, rounds, raiseFrom, suspendFirst):
            lines.append(indent + "\(sources) x signalSource(signal \(Program.testSignals[signal]), q\(queue))"
                         + (suspendFirst ? ", the first suspended" : "") + ", \(rounds) x kill"
                         + (raiseFrom.map { " from a block of q\($0)" } ?? "") + ", each awaited" + (suspendFirst ? ", resume" : "") + ", cancel")
        case let .reschedule(queue, first, before, second, after, place):
            lines.append(indent + "timer(q\(queue), every \(first) us), after \(before) events schedule(every \(second) us) from "
                         + ["a block of q\(queue)", "its handler", "a block of q\(queue), suspended around it"][place.rawValue]
                         + ", cancel after \(after) fires")
        case let .fileChannel(queue, writes, chunk, reads, byPath, barrier, stopEarly):
            lines.append(indent + "random channel(q\(queue))\(byPath ? " by path" : "") on a new file: \(writes) x write(\(chunk) bytes), "
                         + (barrier && !stopEarly ? "barrier" : "wait") + ", \(reads) x read, "
                         + (stopEarly ? "close(.stop)" : "wait, close"))
        case let .processExit(queue, sources, exitFirst, suspendFirst, cancelFirst):
            lines.append(indent + "spawn sleep" + (exitFirst ? ", kill" : "") + ", \(sources) x processSource(.exit, q\(queue))"
                         + (suspendFirst ? ", the first suspended" : cancelFirst ? ", the first cancelled" : "")
                         + (exitFirst ? "" : ", kill") + ", each awaited" + (suspendFirst ? ", resume" : "") + ", cancel, reap"
                         + " (Conveyor only)")
        case let .transient(serial, blocks, resubmit, group):
            lines.append(indent + "new \(serial ? "serial" : "concurrent") queue, \(blocks) x async\(group ? " in a new group" : "")"
                         + (resubmit ? ", one re-submits" : "") + ", released at once")
        }
    }
}
