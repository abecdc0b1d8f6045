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

// A child program for the main-queue tests: they need a process whose real main thread
// serves the main queue (a test body never runs on the test process's main thread).
// Usage: conveyor-main-queue-probe MODE (the modes are listed at the end of this file)
import Conveyor
import Glibc

/// The identity of the calling thread.
nonisolated func threadID() -> UInt { UInt(pthread_self()) }

/// Work handed to the main queue from other threads runs there, in order, on the main
/// thread; `sync` from a worker runs on the main thread too. Exits 42 when all held.
nonisolated func checkDispatchMain() -> Never {
    let mainThread = threadID()
    final class Log: @unchecked Sendable { var values: [Int] = [] }   // only touched on main
    let log = Log()
    DispatchQueue.global().async {
        for i in 0..<100 {
            DispatchQueue.main.async {
                if threadID() != mainThread { exit(3) }
                dispatchPrecondition(condition: .onQueue(.main))
                log.values.append(i)
            }
        }
        let ranOn = DispatchQueue.main.sync { threadID() }
        DispatchQueue.main.async {
            exit(ranOn == mainThread && log.values == Array(0..<100) ? 42 : 4)
        }
    }
    dispatchMain()
}

/// A host event loop polls the main queue's eventfd and drains it. Exits 0 when the task ran.
nonisolated func checkHostLoop() -> Never {
    let fd = DispatchQueue.mainQueueEventDescriptor
    final class Flag: @unchecked Sendable { var ran = false }   // only touched on main
    let flag = Flag()
    let mainThread = threadID()
    DispatchQueue.global().async {
        DispatchQueue.main.async { flag.ran = threadID() == mainThread }
    }
    let end = DispatchTime.now() + 30
    while !flag.ran && DispatchTime.now() < end {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&request, 1, 1000) > 0 { DispatchQueue.drainMainQueue() }
    }
    exit(flag.ran ? 0 : 5)
}

let modes: [String: () -> Never] = [
    "dispatch-main": checkDispatchMain,
    "host-loop": checkHostLoop,
    "sync-on-main": { DispatchQueue.main.sync {}; exit(0) },
    "sync-through-main": { DispatchQueue(label: "probe.targets-main", target: .main).sync {}; exit(0) },
    "main-thread-bound": checkMainThreadIsBound,
    "main-actor": checkMainActor,
    "main-actor-order": checkMainActorOrder,
    "host-loop-main-actor": checkHostLoopRunsMainActorWork,
    "not-on-main-traps": { dispatchPrecondition(condition: .notOnQueue(.main)); exit(0) },
    "foreign-main-queue": checkForeignMainQueue,
]
guard let mode = CommandLine.arguments.dropFirst().first, let run = modes[mode] else {
    print("usage: conveyor-main-queue-probe " + modes.keys.sorted().joined(separator: " | "))
    exit(2)
}
run()
