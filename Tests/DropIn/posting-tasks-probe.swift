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

// An unmodified program whose tasks, and then plain blocks, each post a block and wait
// for it: 2,000 of each, more than any pool may have threads. Under the drop-in library
// the tasks ran on Conveyor's pool, every thread up to its cap held a task waiting for a
// block queued behind the other tasks, and the program hung; on libdispatch the tasks
// pass (its cooperative queues are as wide as the CPUs, so only that many tasks wait at
// once), and the plain blocks hang there (every thread up to its cap waits: the run ends
// by its own deadline, status 2). Scripts/drop-in.sh runs it on both.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

setvbuf(stdout, nil, _IOLBF, 0)
let count = 2_000

/// Starts `count` waiters with `start`; true when all finished by the deadline.
func allFinish(_ what: String, _ start: (@escaping @Sendable () -> Void) -> Void) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    for _ in 0..<count { start { finished.signal() } }
    let deadline = DispatchTime.now() + 30
    var done = 0
    while done < count, finished.wait(timeout: deadline) == .success { done += 1 }
    print(done == count ? "ok  " : "FAIL", "\(count) \(what) that each post a block and wait for it all finish (\(done) finished)")
    return done == count
}

let tasks = allFinish("tasks") { finish in
    Task.detached {
        let posted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { posted.signal() }
        posted.wait()
        finish()
    }
}
let serial = DispatchQueue(label: "posting-tasks-probe.serial")
let tasksToASerialQueue = allFinish("tasks posting to one serial queue") { finish in
    Task.detached {
        let posted = DispatchSemaphore(value: 0)
        serial.async { posted.signal() }
        posted.wait()
        finish()
    }
}
let blocks = allFinish("blocks on a global queue") { finish in
    DispatchQueue.global().async {
        let posted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { posted.signal() }
        posted.wait()
        finish()
    }
}
exit(!tasks || !tasksToASerialQueue ? 1 : blocks ? 0 : 2)
