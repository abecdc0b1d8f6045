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
    /// Many small serial queues at once: the scheduling cost of queues, not of tasks.
    static let manyQueues = Workload(
        name: "many-queues",
        summary: "10,000 serial queues x 50 async tasks each, submitted round-robin (FIFO checked); ns per task",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)],
        countsAllocations: true
    ) { context in
        let queueCount = context.size(10_000, quick: 1_000)
        let tasksPerQueue = 50
        let queues = (0..<queueCount).map { _ in DispatchQueue(label: "bench.many") }
        let checks = (0..<queueCount).map { _ in Guarded(SequenceCheck()) }
        let group = DispatchGroup()
        let perTask = context.perOperation(queueCount * tasksPerQueue) {
            for task in 0..<tasksPerQueue {
                for index in 0..<queueCount {
                    let state = checks[index]
                    queues[index].async(group: group) { state.value.record(task) }
                }
            }
            group.wait()
        }
        for state in checks {
            try state.value.verify(expected: tasksPerQueue, "many-queues")
        }
        return [perTask]
    }
}
