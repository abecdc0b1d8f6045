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
    /// A concurrent queue used as a reader/writer lock the way users write one: two threads
    /// (`concurrentPerform(iterations: 2)`), each doing 90 % `sync` reads and 10 %
    /// `async(flags: .barrier)` writes, then one `sync(flags: .barrier) {}` to wait for the
    /// last write. The only check inside the timed region is one comparison per read (a
    /// torn pair), a few nanoseconds against microseconds per operation.
    static let readerWriter = Workload(
        name: "reader-writer",
        summary: "concurrentPerform(iterations: 2): 90% sync reads, 10% async(flags: .barrier) writes on one concurrent queue; ns per operation",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)],
        countsAllocations: true
    ) { context in
        let operationsPerThread = context.size(100_000, quick: 10_000)
        let queue = DispatchQueue(label: "bench.reader-writer", attributes: .concurrent)
        let state = Guarded(Pair())
        let torn = AtomicCounter()
        let perOperation = context.perOperation(2 * operationsPerThread) {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for operation in 0..<operationsPerThread {
                    if operation % 10 == 0 {
                        queue.async(flags: .barrier) {
                            state.value.first += 1
                            state.value.second += 1
                        }
                    } else {
                        let pair = queue.sync { state.value }
                        if pair.first != pair.second { torn.add() }
                    }
                }
            }
            queue.sync(flags: .barrier) {}
        }
        let writes = 2 * ((operationsPerThread + 9) / 10)
        let final = queue.sync { state.value }
        try check(
            final.first == writes && final.second == writes && torn.value == 0,
            "reader-writer: \(final.first)/\(final.second) of \(writes) writes, \(torn.value) torn reads")
        return [perOperation]
    }
}

/// Two fields a writer updates together: a reader that sees them differ saw a write half-done.
struct Pair: Sendable {
    var first = 0
    var second = 0
}
