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
    /// A concurrent queue used as a reader/writer lock from two plain POSIX threads, with
    /// writes as `sync(flags: .barrier)` (the caller waits for its write).
    static let readerWriterSync = Workload(
        name: "reader-writer-sync",
        summary: "two threads: 90% sync reads, 10% sync(flags: .barrier) writes on a concurrent queue; ns per operation",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let operationsPerThread = context.size(250_000, quick: 25_000)
        let queue = DispatchQueue(label: "bench.reader-writer-sync", attributes: .concurrent)
        let state = Guarded(Pair())
        let torn = AtomicCounter()
        let (ns, _) = BenchClock.measure {
            let threads = (0..<2).map { _ in
                BenchThread {
                    for operation in 0..<operationsPerThread {
                        if operation % 10 == 0 {
                            queue.sync(flags: .barrier) {
                                state.value.first += 1
                                state.value.second += 1
                            }
                        } else {
                            let pair = queue.sync { state.value }
                            if pair.first != pair.second { torn.add() }
                        }
                    }
                }
            }
            for thread in threads { thread.join() }
        }
        let writes = 2 * ((operationsPerThread + 9) / 10)
        let final = queue.sync { state.value }
        try check(
            final.first == writes && final.second == writes && torn.value == 0,
            "reader-writer-sync: \(final.first)/\(final.second) of \(writes) writes, \(torn.value) torn reads")
        return [Double(ns) / Double(2 * operationsPerThread)]
    }
}

