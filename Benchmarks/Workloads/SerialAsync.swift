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
    /// Throughput of one serial queue, written as a user writes it: 1M
    /// `queue.async { counter.n += 1 }` with a class captured, then `queue.sync {}`.
    /// The count is checked after the timed region (FIFO order is the test suite's job).
    static let serialAsync = Workload(
        name: "serial-async",
        summary: "1M async { counter.n += 1 } onto one serial queue, then sync {}; ns per async",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)],
        countsAllocations: true
    ) { context in
        let count = context.size(1_000_000, quick: 100_000)
        let queue = DispatchQueue(label: "bench.serial-async")
        let counter = Counter()
        let perAsync = context.perOperation(count) {
            for _ in 0..<count {
                queue.async { counter.n += 1 }
            }
            queue.sync {}
        }
        try check(counter.n == count, "serial-async: \(counter.n) of \(count) closures ran")
        return [perAsync]
    }
}
