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
    /// `concurrentPerform` with real work: how close it gets to the ideal speed-up.
    ///
    /// Each run first does the same iterations serially on the calling thread; efficiency is
    /// serial time / (CPUs × parallel time), 100 % being a perfect speed-up over all CPUs of
    /// the affinity mask.
    static let concurrentPerformWork = Workload(
        name: "concurrent-perform-10us",
        summary: "concurrentPerform of 2,000 iterations of ~10 µs work; ns per iteration, and efficiency vs ideal speed-up",
        metrics: [
            MetricSpec(unit: .nanosecondsPerOp),
            MetricSpec("efficiency", unit: .percent, higherIsBetter: true),
        ]
    ) { context in
        let iterations = context.size(2_000, quick: 500)
        let rounds = SpinWork.roundsPer10Microseconds
        let (serialNs, expected) = BenchClock.measure {
            (0..<iterations).map { SpinWork.run(seed: UInt64($0), rounds: rounds) }
        }
        let results = SlotBuffer<UInt64>(count: iterations, initialValue: 0)
        let (parallelNs, _) = BenchClock.measure {
            DispatchQueue.concurrentPerform(iterations: iterations) { index in
                results[index] = SpinWork.run(seed: UInt64(index), rounds: rounds)
            }
        }
        try check(results.snapshot() == expected, "concurrent-perform-10us: some iterations missing or wrong")
        let cpus = Double(min(Machine.cpuCount, iterations))
        let efficiency = Double(serialNs) / (cpus * Double(parallelNs)) * 100
        return [Double(parallelNs) / Double(iterations), efficiency]
    }
}
