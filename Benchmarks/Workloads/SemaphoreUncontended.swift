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
    /// `wait` + `signal` on a semaphore that never has to block.
    static let semaphoreUncontended = Workload(
        name: "semaphore-uncontended",
        summary: "wait() then signal() on a semaphore of value 1, one thread; ns per pair",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let count = context.size(5_000_000, quick: 500_000)
        let semaphore = DispatchSemaphore(value: 1)
        let state = Guarded(0)
        let (ns, _) = BenchClock.measure {
            for _ in 0..<count {
                semaphore.wait()
                state.value += 1
                semaphore.signal()
            }
        }
        try check(state.value == count, "semaphore-uncontended: \(state.value) of \(count) passes")
        try check(semaphore.wait(timeout: .now()) == .success, "semaphore-uncontended: value is not back to 1")
        semaphore.signal()
        return [Double(ns) / Double(count)]
    }
}
