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
    /// CPU the process burns while it has nothing to do, right after this library's pool,
    /// timers and `concurrentPerform` were used (spinning, polling or timer threads show
    /// here).
    ///
    /// The clock is process-wide, so the run first waits (up to 6 s; 3 s with `--quick`)
    /// for the pool threads that earlier work left behind to exit: libdispatch's idle
    /// workers exit about 5 s after their last task, and hundreds of them exiting at once
    /// would otherwise be charged to whichever library is measured next. Both libraries
    /// stay loaded; a library whose parked threads never exit simply stays parked, at no cost.
    static let idleCPU = Workload(
        name: "idle-cpu",
        summary: "process CPU time while idle for 5 s after using the pool; CPU ms per second",
        // Below 1 CPU ms/s (0.1 % of a core) both libraries count as idle: a tie.
        metrics: [MetricSpec(unit: .cpuMillisecondsPerSecond, noiseFloor: 1)],
        schedule: .once
    ) { context in
        let idleNs = UInt64(context.size(5_000, quick: 1_000)) * 1_000_000
        Machine.waitForPoolThreadsToExit(maxSeconds: context.quick ? 3 : 6)
        let tasks = 20_000
        let counter = AtomicCounter()
        let group = DispatchGroup()
        let global = DispatchQueue.global()
        for _ in 0..<tasks {
            global.async(group: group) { counter.add() }
        }
        group.enter()
        DispatchQueue(label: "bench.idle-timer").asyncAfter(deadline: .now() + .milliseconds(2)) {
            counter.add()
            group.leave()
        }
        let rounds = SpinWork.roundsPer10Microseconds
        DispatchQueue.concurrentPerform(iterations: 256) { index in
            blackHole(SpinWork.run(seed: UInt64(index), rounds: rounds))
        }
        group.wait()
        try check(counter.value == tasks + 1, "idle-cpu: \(counter.value) of \(tasks + 1) tasks ran")
        let cpuBefore = BenchClock.processCPU()
        let wallBefore = BenchClock.now()
        BenchClock.sleep(nanoseconds: idleNs)
        let cpuNs = Double(BenchClock.processCPU() - cpuBefore)
        let wallNs = Double(BenchClock.now() - wallBefore)
        return [(cpuNs / 1e6) / (wallNs / 1e9)]
    }
}
