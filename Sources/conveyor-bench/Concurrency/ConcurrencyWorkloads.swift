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

import BenchCore
import Conveyor
#if canImport(Glibc)
import Glibc
#endif

/// Swift concurrency workloads, each run in three setups (one fresh process per run):
/// the default executor (on Linux, the toolchain's libdispatch pool), Conveyor installed as
/// the global executor, and, where it applies, actors whose executors are Conveyor serial
/// queues (on the default global executor).
enum ConcurrencyVariant: String, CaseIterable, Sendable {
    case defaultExecutor = "default"
    case conveyorGlobal = "conveyor"
    case queueActors = "queue-actors"
    /// The default executor again, in a process that preloads Conveyor's drop-in library:
    /// the toolchain's concurrency runtime, unchanged, on Conveyor through its dispatch calls.
    case defaultDropIn = "default-drop-in"
}

/// One Swift concurrency workload: what it measures and how to run it once.
struct ConcurrencyWorkload: Sendable {
    let name: String
    let summary: String
    /// Labels and units of the values `body` returns, in order.
    let metrics: [(label: String, unit: String)]
    /// The setups it runs in.
    let variants: [ConcurrencyVariant]
    let body: @Sendable (_ variant: ConcurrencyVariant, _ quick: Bool) async -> [Double]

    static let all: [ConcurrencyWorkload] = [taskGroupFanOut, actorPingPong, sleepLateness]

    /// 500k child tasks in one task group, each returning its index; the sum is checked.
    static let taskGroupFanOut = ConcurrencyWorkload(
        name: "task-group-fan-out",
        summary: "500k child tasks in one task group, summed; ns per child task",
        metrics: [("", "ns/op")], variants: [.defaultExecutor, .conveyorGlobal]
    ) { _, quick in
        let count = quick ? 50_000 : 500_000
        let start = BenchClock.now()
        let sum = await withTaskGroup(of: Int.self) { group in
            for index in 0..<count { group.addTask { index } }
            return await group.reduce(0, +)
        }
        let elapsed = BenchClock.now() - start
        precondition(sum == count * (count - 1) / 2, "task-group-fan-out: wrong sum")
        return [Double(elapsed) / Double(count)]
    }

    /// 100k round trips between two actors (one calls the other and awaits the answer).
    static let actorPingPong = ConcurrencyWorkload(
        name: "actor-ping-pong",
        summary: "100k round trips between two actors; ns per round trip",
        metrics: [("", "ns/op")], variants: [.defaultExecutor, .conveyorGlobal, .queueActors]
    ) { variant, quick in
        let rounds = quick ? 10_000 : 100_000
        let start = BenchClock.now()
        let total: Int
        if variant == .queueActors {
            let pong = QueuePong(queue: DispatchSerialQueue(label: "bench.pong"))
            total = await QueuePing(queue: DispatchSerialQueue(label: "bench.ping"), partner: pong).play(rounds: rounds)
        } else {
            total = await Ping(partner: Pong()).play(rounds: rounds)
        }
        let elapsed = BenchClock.now() - start
        precondition(total == rounds, "actor-ping-pong: lost a round")
        return [Double(elapsed) / Double(rounds)]
    }

    /// 2,000 sequential `Task.sleep`s of 50 µs: how late each wakes.
    static let sleepLateness = ConcurrencyWorkload(
        name: "task-sleep-lateness",
        summary: "2,000 Task.sleep(for: 50 µs) one after another; lateness p50 and p99",
        metrics: [("p50", "µs"), ("p99", "µs")], variants: [.defaultExecutor, .conveyorGlobal]
    ) { _, quick in
        let count = quick ? 200 : 2_000
        var lateness: [Double] = []
        lateness.reserveCapacity(count)
        for _ in 0..<count {
            let start = BenchClock.now()
            try? await Task.sleep(nanoseconds: 50_000)
            lateness.append(Double(BenchClock.now() - start) / 1_000 - 50)
        }
        return [Statistics.percentile(lateness, 50), Statistics.percentile(lateness, 99)]
    }
}

/// The answering actor, on the default actor executor.
actor Pong {
    private var hits = 0
    func hit() -> Int {
        hits += 1
        return hits
    }
}

/// The calling actor, on the default actor executor.
actor Ping {
    private let partner: Pong
    init(partner: Pong) { self.partner = partner }
    func play(rounds: Int) async -> Int {
        var last = 0
        for _ in 0..<rounds { last = await partner.hit() }
        return last
    }
}

/// The answering actor, on a Conveyor serial queue.
actor QueuePong {
    private let queue: DispatchSerialQueue
    private var hits = 0
    init(queue: DispatchSerialQueue) { self.queue = queue }
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
    func hit() -> Int {
        hits += 1
        return hits
    }
}

/// The calling actor, on another Conveyor serial queue.
actor QueuePing {
    private let queue: DispatchSerialQueue
    private let partner: QueuePong
    init(queue: DispatchSerialQueue, partner: QueuePong) {
        self.queue = queue
        self.partner = partner
    }
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
    func play(rounds: Int) async -> Int {
        var last = 0
        for _ in 0..<rounds { last = await partner.hit() }
        return last
    }
}
