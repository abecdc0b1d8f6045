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


// An unmodified program with an `async` main (Swift concurrency drains the main queue
// through dispatch_main): MainActor work, and 64 tasks that block on a semaphore while a
// 65th must still run to release them. On libdispatch the runtime's queues are as wide as
// the CPUs, so the blocked tasks take every thread and the 65th never runs (a known Linux
// fault: the run ends by its own deadline, status 2); on Conveyor all 64 start.
// Scripts/drop-in.sh runs it on both.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

@MainActor var mainActorHops = 0

@main
struct AsyncProbe {
    static func main() async {
        setvbuf(stdout, nil, _IOLBF, 0)
        let marker = dlsym(nil, "conveyor_drop_in").map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
        print("running on", marker ?? "libdispatch")
        for _ in 0..<10 { await MainActor.run { mainActorHops += 1 } }
        let hops = await MainActor.run { mainActorHops }
        print(hops == 10 ? "ok  " : "FAIL", "an async main hops onto the MainActor 10 times")

        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        // Counted, and the verdict given, on a plain thread: every task thread may be
        // blocked, and on libdispatch the main actor may never run again.
        Thread_start {
            var startedCount = 0
            var finishedCount = 0
            let deadline = DispatchTime.now() + 10
            while startedCount < 64, started.wait(timeout: deadline) == .success { startedCount += 1 }
            while finishedCount < 64, finished.wait(timeout: deadline) == .success { finishedCount += 1 }
            let passed = startedCount == 64 && finishedCount == 64
            print(passed ? "ok  " : "FAIL",
                  "64 tasks blocked on a semaphore all start, and a 65th releases them (\(startedCount) started, \(finishedCount) finished)")
            exit(hops != 10 ? 1 : passed ? 0 : 2)
        }
        for _ in 0..<64 { Task.detached { started.signal(); gate.wait(); finished.signal() } }
        Task.detached { for _ in 0..<64 { gate.signal() } }
        while true { try? await Task.sleep(for: .seconds(60)) }
    }
}

/// Runs `body` on a new detached POSIX thread.
@discardableResult
func Thread_start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    pthread_detach(thread)
    return thread
}
