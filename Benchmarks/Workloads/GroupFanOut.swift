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
    /// Fan-out to the default global queue, joined with a `DispatchGroup`: 500k
    /// `global().async(group:)` of an empty closure, then `group.wait()`. That `wait()`
    /// returns is the check: every task left the group.
    static let groupFanOut = Workload(
        name: "group-fan-out",
        summary: "500k global().async(group:) of an empty closure, then group.wait(); ns per task",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)],
        countsAllocations: true
    ) { context in
        let count = context.size(500_000, quick: 50_000)
        let group = DispatchGroup()
        let perTask = context.perOperation(count) {
            for _ in 0..<count {
                DispatchQueue.global().async(group: group) {}
            }
            group.wait()
        }
        return [perTask]
    }
}
