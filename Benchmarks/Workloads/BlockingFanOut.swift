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
import BenchCore

extension Catalog {
    /// Thread starvation: 64 tasks on a global queue that each block until all 64 have
    /// started. A pool that adds threads slowly when its workers block (libdispatch on Linux:
    /// about one per second) takes a minute; the workload gives up after the time limit,
    /// then releases every blocked task and waits for all of them before returning.
    static let blockingFanOut = Workload(
        name: "blocking-fan-out",
        summary: "64 global-queue tasks that block on a semaphore until all 64 started; ms until all started (gives up after the time limit)",
        metrics: [MetricSpec(unit: .milliseconds)]
    ) { context in
        let tasks = 64
        let started = AtomicCounter()
        let allStartedAt = AtomicCounter()
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let global = DispatchQueue.global()
        let startNs = BenchClock.now()
        for _ in 0..<tasks {
            global.async(group: group) {
                if started.add() == tasks {
                    allStartedAt.store(Int(BenchClock.now()))
                    for _ in 1..<tasks { gate.signal() }
                } else {
                    gate.wait()
                }
            }
        }
        let limit = context.timeLimitSeconds
        if group.wait(timeout: .now() + .milliseconds(Int(limit * 1000))) == .timedOut {
            let startedByThen = started.value
            // Release the tasks that wait and let the rest pass straight through, so that
            // no thread stays blocked and the process can go on (and exit) cleanly.
            for _ in 0..<tasks { gate.signal() }
            let drainSeconds = 120
            try check(
                group.wait(timeout: .now() + .seconds(drainSeconds)) == .success,
                "blocking-fan-out: released tasks did not finish within \(drainSeconds) s")
            throw WorkloadError.timedOut(
                seconds: limit, detail: "\(min(startedByThen, tasks)) of \(tasks) tasks had started")
        }
        try check(started.value == tasks, "blocking-fan-out: \(started.value) of \(tasks) tasks ran")
        return [Double(UInt64(allStartedAt.value) - startNs) / 1e6]
    }
}
