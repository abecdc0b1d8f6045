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
    /// The per-iteration overhead of `concurrentPerform` with (almost) nothing to do.
    static let concurrentPerformEmpty = Workload(
        name: "concurrent-perform-empty",
        summary: "concurrentPerform of 10M near-empty iterations (every 1024th index recorded to validate); ns per iteration",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let iterations = context.size(10_000_000, quick: 1_000_000)
        let marks = AtomicCounter()
        let indexSum = AtomicCounter()
        let (ns, _) = BenchClock.measure {
            DispatchQueue.concurrentPerform(iterations: iterations) { index in
                if index & 1023 == 0 {
                    marks.add()
                    indexSum.add(index >> 10)
                }
            }
        }
        let expectedMarks = (iterations + 1023) / 1024
        try check(
            marks.value == expectedMarks && indexSum.value == expectedMarks * (expectedMarks - 1) / 2,
            "concurrent-perform-empty: \(marks.value) of \(expectedMarks) sampled iterations ran (or some twice)")
        return [Double(ns) / Double(iterations)]
    }
}
