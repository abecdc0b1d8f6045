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
    /// QoS: a user-initiated block posted while every CPU runs default blocks of 20 ms, in
    /// seven rounds; how long after its post it starts (median and slowest round). A pool
    /// that runs it only when a worker finishes a default block starts it up to 20 ms late;
    /// libdispatch on Linux gives each QoS class threads of its own.
    static let qosUrgentStart = Workload(
        name: "qos-urgent-start",
        summary: "a user-initiated block posted while every CPU runs default blocks of 20 ms; ms until it starts, median and slowest of 7 rounds",
        metrics: [
            MetricSpec("p50", unit: .milliseconds),
            MetricSpec("max", unit: .milliseconds),
        ]
    ) { context in
        let cpus = Machine.cpuCount
        let rounds = 7
        let busyNs: UInt64 = 20_000_000
        var starts: [Double] = []
        for round in 0..<rounds {
            let group = DispatchGroup()
            let busyStarted = AtomicCounter()
            for _ in 0..<(3 * cpus) {
                DispatchQueue.global().async(group: group) {
                    _ = busyStarted.add()
                    let end = BenchClock.now() + busyNs
                    while BenchClock.now() < end {}
                }
            }
            // Post once every CPU is inside a default block.
            let giveUp = BenchClock.now() + UInt64(context.timeLimitSeconds * 1e9)
            while busyStarted.value < cpus {
                if BenchClock.now() > giveUp {
                    _ = group.wait(timeout: .now() + .seconds(30))
                    throw WorkloadError.timedOut(seconds: context.timeLimitSeconds,
                                                 detail: "round \(round): \(busyStarted.value) of \(cpus) default blocks had started")
                }
            }
            let startedAt = AtomicCounter()
            let postedAt = BenchClock.now()
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
                startedAt.store(Int(BenchClock.now()))
            }
            try check(group.wait(timeout: .now() + .seconds(30)) == .success, "qos-urgent-start: round \(round) did not finish within 30 s")
            starts.append(Double(UInt64(startedAt.value) - postedAt) / 1e6)
        }
        return [Statistics.median(starts), starts.max() ?? 0]
    }
}
