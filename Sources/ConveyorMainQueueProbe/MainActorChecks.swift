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
