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

/// A random program of queue operations for the model-based test, and the outcome a
/// sequential model predicts for it.
///
/// The queues: 0 and 1 are serial (1 may target 0), 2 is concurrent, 3 is serial and
/// created inactive, retargeted (to 0, 2 or a global queue) before it is activated.
struct QueueModelProgram: CustomStringConvertible {
    static let serialA = 0, serialB = 1, concurrent = 2, inactive = 3, queueCount = 4

    enum Op: CustomStringConvertible {
        case async(queue: Int, id: Int)
        case sync(queue: Int, id: Int)
        case barrierAsync(id: Int)
        case barrierSync(id: Int)
        /// suspend; async `ids`; submit `cancelled` and cancel it; resume.
        case suspended(queue: Int, ids: [Int], cancelled: Int)
        /// A work item cancelled before it is submitted.
        case cancelledUpFront(queue: Int, id: Int)
        /// A work item submitted to the inactive queue and cancelled before activation.
        case cancelledWhileInactive(id: Int)
        case activate
        /// group.enter(); async a task that leaves.
        case enterLeave(queue: Int, id: Int)
        /// group.notify on a global queue.
        case notify(id: Int)
        /// A work item submitted with the group and, if its queue can run it, waited for.
        case workItem(queue: Int, id: Int, wait: Bool)

        var description: String {
            switch self {
            case let .async(q, id): "async(q\(q), #\(id))"
            case let .sync(q, id): "sync(q\(q), #\(id))"
            case let .barrierAsync(id): "barrierAsync(#\(id))"
            case let .barrierSync(id): "barrierSync(#\(id))"
            case let .suspended(q, ids, c): "suspended(q\(q), \(ids), cancel #\(c))"
            case let .cancelledUpFront(q, id): "cancelledUpFront(q\(q), #\(id))"
            case let .cancelledWhileInactive(id): "cancelledWhileInactive(#\(id))"
            case .activate: "activate"
            case let .enterLeave(q, id): "enterLeave(q\(q), #\(id))"
            case let .notify(id): "notify(#\(id))"
            case let .workItem(q, id, wait): "workItem(q\(q), #\(id), wait: \(wait))"
            }
        }
    }

    let seed: UInt64
    let serialBTargetsA: Bool
    /// Where queue 3 is retargeted: 0, 2, or nil for a global queue.
    let inactiveTarget: Int?
    let ops: [Op]

    var description: String {
        "seed \(seed): q1→\(serialBTargetsA ? "q0" : "global"), q3→\(inactiveTarget.map { "q\($0)" } ?? "global")\n  "
            + ops.map(\.description).joined(separator: "\n  ")
    }

    /// Serial queues whose tasks must not overlap those of `queue` (itself included).
    func exclusionChain(of queue: Int) -> [Int] {
        switch queue {
        case Self.serialB: serialBTargetsA ? [Self.serialB, Self.serialA] : [Self.serialB]
        case Self.inactive: inactiveTarget == Self.serialA ? [Self.inactive, Self.serialA] : [Self.inactive]
        case Self.serialA: [Self.serialA]
        default: []
        }
    }

    init(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        self.seed = seed
        serialBTargetsA = rng.chance(50)
        inactiveTarget = [Self.serialA, Self.concurrent, nil][rng.below(3)]
        var ops: [Op] = [], nextID = 0, active = false
        func id() -> Int { defer { nextID += 1 }; return nextID }
        for _ in 0..<(10 + rng.below(40)) {
            let queue = rng.below(Self.queueCount)
            let ready = queue != Self.inactive || active  // can run (and be waited for) now
            switch rng.below(100) {
            case 0..<30: ops.append(.async(queue: queue, id: id()))
            case 30..<42: ops.append(ready ? .sync(queue: queue, id: id()) : .async(queue: queue, id: id()))
            case 42..<52: ops.append(rng.chance(50) ? .barrierAsync(id: id()) : .barrierSync(id: id()))
            case 52..<62: ops.append(.suspended(queue: queue, ids: (0..<(1 + rng.below(3))).map { _ in id() }, cancelled: id()))
            case 62..<67: ops.append(.cancelledUpFront(queue: queue, id: id()))
            case 67..<72: ops.append(active ? .async(queue: queue, id: id()) : .cancelledWhileInactive(id: id()))
            case 72..<78:
                if !active { ops.append(.activate) }
                active = true
            case 78..<86: ops.append(.enterLeave(queue: queue, id: id()))
            case 86..<92: ops.append(.notify(id: id()))
            default: ops.append(.workItem(queue: queue, id: id(), wait: ready && rng.chance(70)))
            }
        }
        self.ops = ops
    }

    /// What a correct implementation must produce.
    struct Expectation {
        /// Per queue, the ids that run, in submission order (the concurrent queue: any order).
        var order: [[Int]] = Array(repeating: [], count: QueueModelProgram.queueCount)
        /// Per barrier, the concurrent queue's tasks done when it starts: all earlier ones.
        var barrierSees: [Int: Set<Int>] = [:]
        /// Per notify, the tasks that must be done when it runs: all submitted before it.
        var notifySees: [Int: Set<Int>] = [:]
        var cancelled: Set<Int> = []
    }

    /// The sequential model: runs the program in the head.
    func expectation() -> Expectation {
        var e = Expectation()
        var submitted: Set<Int> = []
        func run(_ queue: Int, _ id: Int) {
            e.order[queue].append(id)
            submitted.insert(id)
        }
        for op in ops {
            switch op {
            case let .async(q, id), let .sync(q, id), let .enterLeave(q, id), let .workItem(q, id, _):
                run(q, id)
            case let .barrierAsync(id), let .barrierSync(id):
                e.barrierSees[id] = Set(e.order[Self.concurrent])
                run(Self.concurrent, id)
            case let .suspended(q, ids, cancelled):
                for id in ids { run(q, id) }
                e.cancelled.insert(cancelled)
            case let .cancelledUpFront(_, id), let .cancelledWhileInactive(id):
                e.cancelled.insert(id)
            case .activate:
                break
            case let .notify(id):
                e.notifySees[id] = submitted
            }
        }
        return e
    }
}
