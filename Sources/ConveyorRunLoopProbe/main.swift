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

// A child program for the main-queue tests: Foundation's RunLoop owns the main thread.
// RunLoop drains the toolchain's libdispatch main queue; Conveyor's main queue must run
// there too, on the main thread. Usage: conveyor-runloop-probe MODE; exits 0 when it held.
import Conveyor
import Foundation

/// Runs the main run loop until `done()` or 30 s; exits 0 if `done()` became true.
@MainActor
func runLoopUntil(_ done: () -> Bool) -> Never {
    let end = Date(timeIntervalSinceNow: 30)
    while !done() && Date() < end {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 1))
    }
    exit(done() ? 0 : 1)
}

/// Main-thread state (only touched on the main thread).
final class Box: @unchecked Sendable {
    var values: [Int] = []
    var flag = false
}

@MainActor
func checkAsync() -> Never {
    let box = Box()
    DispatchQueue.global().async {
        for i in 0..<100 {
            DispatchQueue.main.async {
                precondition(Thread.isMainThread)
                dispatchPrecondition(condition: .onQueue(.main))
                box.values.append(i)
            }
        }
    }
    runLoopUntil { box.values == Array(0..<100) }
}

@MainActor
func checkSyncFromWorker() -> Never {
    let box = Box()
    DispatchQueue.global().async {
        let onMain = DispatchQueue.main.sync { Thread.isMainThread }
        DispatchQueue.main.async { box.flag = onMain }
    }
    runLoopUntil { box.flag }
}

@MainActor
func checkQueueTargetingMain() -> Never {
    let box = Box()
    let queue = DispatchQueue(label: "probe.targets-main", target: .main)
    DispatchQueue.global().async {
        queue.async { box.flag = Thread.isMainThread }
    }
    runLoopUntil { box.flag }
}

@MainActor
func checkMainActor() -> Never {
    let box = Box()
    Task.detached {
        await MainActor.run { box.values.append(1) }
        DispatchQueue.main.async { MainActor.assumeIsolated { box.values.append(2) } }
    }
    runLoopUntil { box.values == [1, 2] }
}

/// A repeating timer on the main queue whose handler outlasts its interval, and stops the
/// run loop: `RunLoop.run` returns (a drain that ran the queue until it was empty ran the
/// next delivery, then the next, and never came back to the run loop).
@MainActor
func checkStopDuringRepeatingTimer() -> Never {
    let timer = DispatchSource.makeTimerSource(queue: .main)
    let box = Box()
    timer.schedule(deadline: .now(), repeating: .milliseconds(2))
    timer.setEventHandler {
        box.values.append(0)
        usleep(20_000)
        RunLoop.current._stop()
    }
    timer.resume()
    // A watchdog: a run loop that never returns fails the probe instead of hanging it.
    Thread.detachNewThread { sleep(20); exit(3) }
    _ = RunLoop.main.run(mode: .default, before: .distantFuture)
    timer.cancel()
    exit(box.values.count < 5 ? 0 : 4)
}

/// One turn of the run loop runs every block queued on the main queue before it, as
/// libdispatch's snapshot drain does (Conveyor's drain stopped at 256: test helpers that
/// spin the run loop once to flush the main queue saw part of the work).
@MainActor
func checkOneTurnRunsAllQueued() -> Never {
    let box = Box()
    for i in 0..<1000 { DispatchQueue.main.async { box.values.append(i) } }
    _ = RunLoop.main.run(mode: .default, before: Date())
    print("one turn ran \(box.values.count) of 1000")
    exit(box.values == Array(0..<1000) ? 0 : 1)
}

let modes: [String: @MainActor () -> Never] = [
    "one-turn-runs-all-queued": checkOneTurnRunsAllQueued,
    "stop-during-repeating-timer": checkStopDuringRepeatingTimer,
    "async": checkAsync,
    "sync-from-worker": checkSyncFromWorker,
    "queue-targeting-main": checkQueueTargetingMain,
    "main-actor": checkMainActor,
]
guard let mode = CommandLine.arguments.dropFirst().first, let run = modes[mode] else {
    print("usage: conveyor-runloop-probe " + modes.keys.sorted().joined(separator: " | "))
    exit(2)
}
run()
