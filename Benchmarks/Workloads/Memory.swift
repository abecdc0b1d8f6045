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

// Each memory workload reports three figures per object, over the same region:
// - rss: growth of the resident set (/proc/self/statm), what `top` shows a user;
// - malloc bytes: the sizes requested from malloc meanwhile (the interposer in
//   CBenchSupport; malloc's own 8-16 byte chunk headers are not included);
// - mallocs: how many allocation calls that took.
// The storage that holds the objects is allocated and touched before the baseline.

/// The metrics every memory workload reports, in order.
private let memoryMetrics = [
    MetricSpec("rss", unit: .bytes),
    MetricSpec("malloc bytes", unit: .bytes),
    MetricSpec("mallocs", unit: .allocationsPerOp),
]

/// Runs `body` and returns its RSS growth, bytes requested and allocation calls, per item.
private func measureMemory(items: Int, _ body: () -> Void) -> [Double] {
    let rssBefore = Heap.residentBytes()
    let (allocations, bytes, _) = Heap.countAllocations(body)
    let rssAfter = Heap.residentBytes()
    let n = Double(items)
    return [Double(rssAfter - rssBefore) / n, Double(bytes) / n, Double(allocations) / n]
}

extension Catalog {
    /// What one created, never used serial queue costs: 100,000 of them.
    static let memoryPerIdleQueue = Workload(
        name: "memory-idle-queue",
        summary: "100,000 idle serial queues; bytes per queue (RSS growth, malloc'd bytes) and mallocs",
        metrics: memoryMetrics
    ) { context in
        try check(Heap.countingWorks, "memory-idle-queue: malloc is not interposed; cannot count")
        let count = context.size(100_000, quick: 20_000)
        let slots = UnsafeMutablePointer<DispatchQueue?>.allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
        defer {
            slots.deinitialize(count: count)
            slots.deallocate()
        }
        let values = measureMemory(items: count) {
            for index in 0..<count {
                slots[index] = DispatchQueue(label: "bench.idle")
            }
        }
        let ran = Guarded(0)
        for index in 0..<count {
            slots[index]!.sync { ran.value += 1 }
        }
        try check(ran.value == count, "memory-idle-queue: only \(ran.value) of \(count) queues ran a task")
        return values
    }

    /// What one `async { counter.n += 1 }` costs while it waits on a suspended serial queue:
    /// 1M of them. A closure whose only capture is one class reference needs no context of
    /// its own (Swift passes the reference as the context), so every byte counted here is
    /// the library's (and, for libdispatch, the overlay's block copy).
    static let memoryPerPendingTask = Workload(
        name: "memory-pending-task",
        summary: "1M async { counter.n += 1 } pending on a suspended serial queue; bytes per closure (RSS growth, malloc'd bytes) and mallocs",
        metrics: memoryMetrics
    ) { context in
        try check(Heap.countingWorks, "memory-pending-task: malloc is not interposed; cannot count")
        let count = context.size(1_000_000, quick: 100_000)
        let queue = DispatchQueue(label: "bench.pending")
        let counter = Counter()
        queue.suspend()
        let values = measureMemory(items: count) {
            for _ in 0..<count {
                queue.async { counter.n += 1 }
            }
        }
        queue.resume()
        queue.sync {}
        try check(counter.n == count, "memory-pending-task: \(counter.n) of \(count) closures ran")
        return values
    }
}
