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

import Conveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Pool shapes from issue 11, run on their own (no other traffic) so their checks mean
/// something: CPU-bound bursts must not add threads, and under saturation every QoS band
/// must make progress.
struct PoolPhases {
    let ledger: Ledger
    // The online CPUs: at least the affinity mask's count the pool uses, so the bound stays safe.
    let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))

    func run() {
        cpuBoundBurst()
        mixedQoSUnderSaturation()
    }

    /// 8 tasks per CPU that each compute for 50 ms: the process may not grow by more than
    /// one thread per CPU plus the pool's watchdog (before the fix it grew by one thread
    /// per 10 ms).
    private func cpuBoundBurst() {
        let before = ProcessStats.threadCount()
        let group = DispatchGroup()
        for _ in 0..<(8 * cpus) {
            DispatchQueue.global().async(group: group) {
                self.ledger.taskRan()
                compute(milliseconds: 50)
            }
        }
        var peak = before
        while group.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
            peak = max(peak, ProcessStats.threadCount())
        }
        ledger.check(peak <= before + cpus + 2, "CPU-bound burst: threads \(before) -> \(peak) with \(cpus) CPUs")
        print("pool phase: CPU-bound burst of \(8 * cpus)x50 ms, threads \(before) -> peak \(peak)")
    }

    /// A thread outside the pool keeps the default band full; every other band gets a task
    /// now and then, and each must start within 5 s.
    private func mixedQoSUnderSaturation() {
        let stop = Atomic<Bool>(false)
        let backlog = Atomic<Int>(0)
        let ledger = self.ledger
        let feeder = ProducerThread {
            while !stop.load(ordering: .acquiring) {
                if backlog.load(ordering: .relaxed) < 1_000 {
                    backlog.add(1, ordering: .relaxed)
                    DispatchQueue.global().async {
                        backlog.subtract(1, ordering: .relaxed)
                        ledger.taskRan()
                        compute(milliseconds: 0.2)
                    }
                } else {
                    sched_yield()
                }
            }
        }
        let classes: [DispatchQoS.QoSClass] = [.background, .utility, .userInitiated, .userInteractive]
        var worst = 0.0
        for _ in 0..<3 {
            for qos in classes {
                let started = DispatchSemaphore(value: 0)
                let begin = DispatchTime.now().uptimeNanoseconds
                DispatchQueue.global(qos: qos).async {
                    ledger.taskRan()
                    started.signal()
                }
                let ok = started.wait(timeout: .now() + .seconds(5)) == .success
                ledger.check(ok, "mixed QoS: a \(qos) task did not start within 5 s under default load")
                worst = max(worst, Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
            }
        }
        stop.store(true, ordering: .releasing)
        feeder.join()
        print("pool phase: mixed QoS under saturation, slowest band start \(format2(worst)) ms")
    }
}

/// Spins on the CPU for `milliseconds`.
private func compute(milliseconds: Double) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds * 1e6)
    var x: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end {
        for _ in 0..<200 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
    }
    if x == 0 { print("") }
}
