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


// An unmodified Swift program built against the toolchain's Dispatch and Foundation:
// Scripts/drop-in.sh runs it on libdispatch and under the drop-in library. It uses the
// Dispatch API through the toolchain's own overlay (libswiftDispatch), Foundation's run
// loop on the main thread, and Swift concurrency (tasks, a task group, Task.sleep on both
// clocks, MainActor), and checks what must hold on either library.
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

setvbuf(stdout, nil, _IOLBF, 0)
nonisolated(unsafe) var failures = 0
func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok  " : "FAIL", what)
    if !condition { failures += 1 }
}
let marker = dlsym(nil, "conveyor_drop_in").map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
print("running on", marker ?? "libdispatch")
// A hang is a failure: end the run after 60 s whatever happens.
Thread.detachNewThread { sleep(60); print("FAIL the probe hung"); exit(3) }

let concurrent = DispatchQueue(label: "probe.concurrent", attributes: .concurrent)
let serial = DispatchQueue(label: "probe.serial")
let group = DispatchGroup()
nonisolated(unsafe) var total = 0
for index in 0..<1000 { concurrent.async(group: group) { serial.sync { total += index } } }
check(group.wait(timeout: .now() + 10) == .success && total == 499_500, "a group of 1000 blocks, each syncing onto a serial queue")

let notified = DispatchSemaphore(value: 0)
for _ in 0..<16 { DispatchQueue.global().async(group: group) {} }
group.notify(queue: serial) { notified.signal() }
check(notified.wait(timeout: .now() + 10) == .success, "a group's notify on a serial queue after a fan-out on a global queue")

let item = DispatchWorkItem { }
concurrent.async(execute: item)
check(item.wait(timeout: .now() + 10) == .success, "a DispatchWorkItem runs and is waited for")
let cancelled = DispatchWorkItem { fatalError("a cancelled work item ran") }
cancelled.cancel()
concurrent.async(execute: cancelled)
check(cancelled.isCancelled, "a cancelled DispatchWorkItem")

let timer = DispatchSource.makeTimerSource(queue: concurrent)
let ticks = DispatchSemaphore(value: 0)
timer.schedule(deadline: .now() + .milliseconds(5), repeating: .milliseconds(5))
timer.setEventHandler { ticks.signal() }
timer.resume()
check((0..<3).allSatisfy { _ in ticks.wait(timeout: .now() + 5) == .success }, "a repeating DispatchSourceTimer fires three times")
timer.cancel()

let key = DispatchSpecificKey<Int>()
serial.setSpecific(key: key, value: 42)
check(serial.sync { DispatchQueue.getSpecific(key: key) } == 42, "queue-specific values")
check(DispatchWallTime.now() < DispatchWallTime.now() + .seconds(1), "DispatchWallTime arithmetic and comparison")
check(DispatchTime.now().uptimeNanoseconds > 0, "DispatchTime.uptimeNanoseconds")
nonisolated(unsafe) var performed = [Int](repeating: 0, count: 64)
DispatchQueue.concurrentPerform(iterations: 64) { performed[$0] = 1 }
check(performed.allSatisfy { $0 == 1 }, "concurrentPerform")
let data = Array("hello".utf8).withUnsafeBytes { DispatchData(bytes: $0) }
check(data.count == 5 && Array(data) == Array("hello".utf8), "DispatchData")

// Swift concurrency on the default executor.
let concurrencyDone = DispatchSemaphore(value: 0)
nonisolated(unsafe) var onMainActor = false
Task {
    let sum = await withTaskGroup(of: Int.self) { group in
        for value in 1...100 { group.addTask { value } }
        return await group.reduce(0, +)
    }
    check(sum == 5050, "a task group of 100 child tasks")
    let start = ContinuousClock.now
    try? await Task.sleep(for: .milliseconds(20))
    check(ContinuousClock.now - start >= .milliseconds(20), "Task.sleep(for:) on the continuous clock waits its time")
    let suspendingStart = SuspendingClock.now
    try? await Task.sleep(until: suspendingStart + .milliseconds(20), clock: .suspending)
    check(SuspendingClock.now - suspendingStart >= .milliseconds(20), "Task.sleep on the suspending clock")
    try? await Task.sleep(for: .milliseconds(1), tolerance: .milliseconds(5))
    check(true, "Task.sleep with a tolerance (a timer source)")
    await MainActor.run { onMainActor = Thread.isMainThread }
    concurrencyDone.signal()
}

// The main thread runs Foundation's run loop, which drains the main queue.
nonisolated(unsafe) var mainQueueRan = false
DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(10)) { mainQueueRan = Thread.isMainThread }
let deadline = Date().addingTimeInterval(20)
while concurrencyDone.wait(timeout: .now()) != .success, Date() < deadline {
    RunLoop.main.run(until: Date().addingTimeInterval(0.01))
}
RunLoop.main.run(until: Date().addingTimeInterval(0.05))
check(mainQueueRan, "DispatchQueue.main work runs on the main thread under RunLoop.main")
check(onMainActor, "MainActor.run runs on the main thread under RunLoop.main")

// A repeating timer on the main queue whose handler outlasts its interval and stops the
// run loop: the run loop returns (each drain of the main queue runs what was there).
let slowTimer = DispatchSource.makeTimerSource(queue: .main)
nonisolated(unsafe) var slowCalls = 0
slowTimer.schedule(deadline: .now(), repeating: .milliseconds(2))
slowTimer.setEventHandler {
    slowCalls += 1
    usleep(20_000)
    RunLoop.current._stop()
}
slowTimer.resume()
_ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(20))
slowTimer.cancel()
check(slowCalls < 5, "RunLoop.run returns when a slow repeating main-queue timer stops it (\(slowCalls) calls)")

print(failures == 0 ? "PASSED" : "FAILED", "\(failures) failure(s)")
exit(failures == 0 ? 0 : 1)
