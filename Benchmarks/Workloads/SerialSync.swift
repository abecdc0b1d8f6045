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
    /// The cost of `sync` on a serial queue nobody else uses (the fast path).
    static let serialSync = Workload(
        name: "serial-sync",
        summary: "uncontended sync on an idle serial queue; ns per sync",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let count = context.size(2_000_000, quick: 200_000)
        let queue = DispatchQueue(label: "bench.serial-sync")
        let state = Guarded(0)
        let (ns, _) = BenchClock.measure {
            for _ in 0..<count {
                queue.sync { state.value += 1 }
            }
        }
        try check(state.value == count, "serial-sync: \(state.value) of \(count) closures ran")
        return [Double(ns) / Double(count)]
    }
}
