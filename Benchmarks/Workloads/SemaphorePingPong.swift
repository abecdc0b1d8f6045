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
    /// Wake-up latency: two threads taking turns through a pair of semaphores.
    static let semaphorePingPong = Workload(
        name: "semaphore-ping-pong",
        summary: "two threads alternating through two semaphores; ns per round trip",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let rounds = context.size(20_000, quick: 2_000)
        let ping = DispatchSemaphore(value: 0)
        let pong = DispatchSemaphore(value: 0)
        let state = Guarded(0)  // written by the partner between a ping and its pong
        let partner = BenchThread {
            for _ in 0..<rounds {
                ping.wait()
                state.value += 1
                pong.signal()
            }
        }
        let (ns, _) = BenchClock.measure {
            for _ in 0..<rounds {
                ping.signal()
                pong.wait()
            }
        }
        partner.join()
        try check(state.value == rounds, "semaphore-ping-pong: \(state.value) of \(rounds) round trips")
        return [Double(ns) / Double(rounds)]
    }
}
