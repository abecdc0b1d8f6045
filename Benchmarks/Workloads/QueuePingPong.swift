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
    /// Latency of handing work back and forth between two serial queues.
    static let queuePingPong = Workload(
        name: "queue-ping-pong",
        summary: "two serial queues async-ing to each other; ns per round trip",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)],
        countsAllocations: true
    ) { context in
        let rounds = context.size(50_000, quick: 5_000)
        let game = PingPong(rounds: rounds)
        let perRound = context.perOperation(rounds) {
            game.ping.async { game.servePing() }
            game.finished.wait()
        }
        try check(
            game.pings == rounds && game.pongs == rounds,
            "queue-ping-pong: \(game.pings) pings and \(game.pongs) pongs of \(rounds)")
        return [perRound]
    }
}

/// Two serial queues that bounce a message `rounds` times; each counter is touched only on
/// its own queue, so a broken serial queue shows up as a wrong count.
private final class PingPong: @unchecked Sendable {
    let ping = DispatchQueue(label: "bench.ping")
    let pong = DispatchQueue(label: "bench.pong")
    let finished = DispatchSemaphore(value: 0)
    let rounds: Int
    var pings = 0  // on `ping` only
    var pongs = 0  // on `pong` only

    init(rounds: Int) { self.rounds = rounds }

    func servePing() {
        pings += 1
        pong.async { self.servePong() }
    }

    func servePong() {
        pongs += 1
        if pongs == rounds {
            finished.signal()
        } else {
            ping.async { self.servePing() }
        }
    }
}
