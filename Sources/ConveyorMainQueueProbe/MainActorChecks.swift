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

import CConveyor
import CConveyorMainThreadBridge
import Conveyor
import Glibc

/// The main thread is bound to the main queue before `dispatchMain()`, as with libdispatch:
/// preconditions pass, and `getSpecific` sees the main queue's values outside any queue
/// (but not inside a `sync` to another queue, whose targets lead elsewhere). Exits 0.
nonisolated func checkMainThreadIsBound() -> Never {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    guard DispatchQueue.getSpecific(key: key) == "main" else { exit(3) }
    let queue = DispatchQueue(label: "probe.bound")
    guard queue.sync(execute: { DispatchQueue.getSpecific(key: key) }) == nil else { exit(4) }
    dispatchPrecondition(condition: .onQueue(.main))
    dispatchPrecondition(condition: .onQueueAsBarrier(.main))
    queue.sync { dispatchPrecondition(condition: .onQueue(.main)) }
    DispatchQueue.global().sync { dispatchPrecondition(condition: .onQueue(.main)) }
    exit(0)
}

/// Counts main-thread work that runs at once: MainActor jobs and main-queue blocks must
/// never overlap (one serial context). Only touched on the main thread.
/// The process exits 0 once `expected` pieces of work have run.
final class Overlap: @unchecked Sendable {
    let expected: Int
    var inside = 0
    var ran = 0
    init(expected: Int) { self.expected = expected }
    func enter() {
        inside += 1
        if inside != 1 || !isMainThread() { exit(10) }
    }
    func leave() {
        inside -= 1
        ran += 1
        if ran == expected { exit(0) }
    }
}

nonisolated func isMainThread() -> Bool { cnv_is_main_thread() != 0 }

/// MainActor under Conveyor's `dispatchMain()`: a `@MainActor` task, `MainActor.run` from
/// a detached task, and `MainActor.assumeIsolated` inside a main-queue block all run, on the
/// main thread, never at the same time as each other. Exits 0.
nonisolated func checkMainActor() -> Never {
    guard cnv_main_executor_hooks_installed() != 0 else { exit(20) }
    let rounds = 200
    // The first task, `rounds` MainActor.run calls, the assumeIsolated block, and `rounds`
    // main-queue blocks from a worker.
    let overlap = Overlap(expected: 1 + rounds + 1 + rounds)
    Task { @MainActor in
        overlap.enter(); overlap.leave()
    }
    Task.detached {
        for _ in 0..<rounds {
            await MainActor.run { overlap.enter(); overlap.leave() }
        }
        DispatchQueue.main.async {
            overlap.enter()
            MainActor.assumeIsolated { _ = overlap.ran }
            overlap.leave()
        }
    }
    DispatchQueue.global().async {
        for _ in 0..<rounds { DispatchQueue.main.async { overlap.enter(); overlap.leave() } }
    }
    dispatchMain()
}

/// Work on the toolchain's libdispatch main queue (as Foundation and unswitched libraries
/// put there) runs under Conveyor's `dispatchMain()` too, on the main thread. Exits 0.
nonisolated func checkForeignMainQueue() -> Never {
    DispatchQueue.global().async {
        let submitted = cnv_libdispatch_main_queue_async(nil) { _ in
            exit(isMainThread() ? 0 : 12)
        }
        if submitted != 0 { exit(13) }
    }
    dispatchMain()
}

/// MainActor jobs and main-queue blocks are one FIFO under `dispatchMain()`, as on
/// libdispatch: submitted alternately from the main thread, and alternately from one
/// worker, they run in submission order. (Under Swift 6.3 MainActor jobs went to the
/// toolchain's main queue and ran after every block: q0 q1 q2 t0 t1 t2.) Exits 0.
nonisolated func checkMainActorOrder() -> Never {
    guard cnv_main_executor_installed() != 0 else { exit(21) }
    final class Log: @unchecked Sendable { var entries: [String] = [] }   // only touched on main
    let log = Log()
    for i in 0..<20 {
        DispatchQueue.main.async { log.entries.append("q\(i)") }
        Task { @MainActor in log.entries.append("t\(i)") }
    }
    DispatchQueue.global().async {
        for i in 0..<20 {
            Task { @MainActor in log.entries.append("bt\(i)") }
            DispatchQueue.main.async { log.entries.append("bq\(i)") }
        }
        DispatchQueue.main.async {
            let expected = (0..<20).flatMap { ["q\($0)", "t\($0)"] } + (0..<20).flatMap { ["bt\($0)", "bq\($0)"] }
            if log.entries != expected {
                let line = "order: \(log.entries.joined(separator: " "))\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
                exit(14)
            }
            exit(0)
        }
    }
    dispatchMain()
}

/// A host event loop that serves the main queue through its descriptor runs MainActor
/// work too (it never did under Swift 6.3 before Conveyor became the main executor).
/// Exits 0 when a MainActor task and a main-queue block both ran on the main thread.
nonisolated func checkHostLoopRunsMainActorWork() -> Never {
    let fd = DispatchQueue.mainQueueEventDescriptor
    final class Flags: @unchecked Sendable { var queue = false, actor = false }   // only touched on main
    let flags = Flags()
    DispatchQueue.global().async {
        Task { @MainActor in flags.actor = isMainThread() }
        DispatchQueue.main.async { flags.queue = isMainThread() }
    }
    let end = DispatchTime.now() + 30
    while !(flags.queue && flags.actor) && DispatchTime.now() < end {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&request, 1, 1000) > 0 { DispatchQueue.drainMainQueue() }
    }
    exit(flags.queue && flags.actor ? 0 : 15)
}
