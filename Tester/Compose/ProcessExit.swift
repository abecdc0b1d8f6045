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
import Glibc

extension Program {
    /// `threads` with process sources (see `inserting`; Conveyor's build only runs them:
    /// the toolchain's Dispatch has no process sources on Linux).
    static func addingProcessExits(to threads: [[Op]], seed: UInt64, queues: [Queue], api: API) -> [[Op]] {
        let eligible = queues.filter { !$0.main }.map(\.index)
        return inserting(into: threads, seed: seed, salt: 0x5052_4F43_4553, percent: 10, api: api) { random in
            Op.processExit(queue: eligible[random.below(eligible.count)], sources: random.within(1...3),
                           exitFirst: random.percent(30), suspendFirst: random.percent(40), cancelFirst: random.percent(30))
        }
    }
}

extension Runner {
    /// Process sources on `q` (`Program.Op.processExit`) for a child process that this
    /// thread starts (`sleep`, so that it lives until killed): `sources` sources for its
    /// exit, made after it exited (a zombie, not yet reaped) when `exitFirst`, else before
    /// it is killed; the first of them suspended until every other saw the exit when
    /// `suspendFirst`, or cancelled first (before the kill, or after its activation when
    /// the child exited first) when `cancelFirst`. Every source that runs must see the
    /// exit once (data `.exit`), never before the child exited, never while suspended, and
    /// not at all when cancelled before the kill; its registration handler runs
    /// once, before any event; its cancel handler once, after every other handler.
    /// The child is reaped at the end.
    func processExit(_ q: Int, sources count: Int, exitFirst: Bool, suspendFirst: Bool, cancelFirst: Bool) {
        #if CONVEYOR
        let what = "process sources on q\(q)"
        let checker = checker
        var pid: pid_t = 0
        let spawned = withArrayOfCStrings(["sleep", "60"]) { arguments in
            posix_spawnp(&pid, "sleep", nil, nil, arguments, environ)
        }
        guard spawned == 0 else { return checker.fail("\(what): posix_spawnp(sleep) failed (\(spawned))") }
        let exited = Flag()
        func exitChild() -> Bool {
            exited.set()
            kill(pid, SIGKILL)
            // Wait for the exit without reaping: the child stays a zombie until the end.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
                guard errno == EINTR else {
                    checker.fail("\(what): waitid for the killed child failed (errno \(errno))")
                    return false
                }
            }
            return true
        }
        defer {
            if !exited.isSet { _ = exitChild() }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        if exitFirst && !exitChild() { return }
        let progress = makeSemaphore(0)
        let records = (0..<count).map { _ in SourceRecord() }
        let boxes = records.indices.map { _ in UncheckedBox(DispatchSource.makeProcessSource(identifier: pid, eventMask: .exit, queue: queues[q])) }
        for (index, box) in boxes.enumerated() {
            let record = records[index]
            let label = "\(what): source \(index)"
            box.value.setEventHandler(handler: checkedHandler(q, what: "\(label): event handler", {
                let data = box.value.data
                record.event(checker, what: label, problem: !exited.isSet ? "an event handler ran before the process exited"
                                 : !data.contains(.exit) ? "an event without the exit (data \(data.rawValue))" : nil,
                             once: true)
            }, after: progress.signal))
            box.value.setRegistrationHandler(handler: checkedHandler(q, what: "\(label): registration handler", {
                record.registered(checker, what: label)
            }, after: progress.signal))
            checker.expect()
            box.value.setCancelHandler(handler: checkedHandler(q, what: "\(label): cancel handler", {
                record.cancelled(checker, what: label)
            }, after: { checker.done() }))
            if index == 0 && suspendFirst {
                record.setSuspended(true)
                box.value.suspend()
            }
            box.value.activate()
        }
        func awaitUntil(_ why: String, _ reached: () -> Bool) -> Bool {
            awaitSources(records, what: what, progress: progress, why, until: reached)
        }
        let cancelledFirst = cancelFirst && !suspendFirst
        if cancelledFirst {
            // Of a child that exited already, the exit may have reached the source since
            // its activation: an event is allowed then, not after the cancel handler.
            if !exitFirst { records[0].forbidEvents(because: "the source was cancelled before the exit") }
            boxes[0].value.cancel()
        }
        let running = Array(records.indices.dropFirst(suspendFirst || cancelledFirst ? 1 : 0))
        // A failure (reported) still resumes and cancels every source below: a source left
        // suspended would never run its cancel handler.
        let childExited = exitFirst || exitChild()
        let reachedAll = childExited && awaitUntil("the exit did not reach every source", { running.allSatisfy { records[$0].events > 0 } })
        if suspendFirst {
            records[0].setSuspended(false)
            boxes[0].value.resume()
            if reachedAll { _ = awaitUntil("the exit did not reach the source resumed after it", { records[0].events > 0 }) }
        }
        for (index, box) in boxes.enumerated() where !(cancelledFirst && index == 0) { box.value.cancel() }
        progress.release()
        #endif
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withArrayOfCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies + [nil])
}
