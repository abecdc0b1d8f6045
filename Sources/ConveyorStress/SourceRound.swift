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

import Conveyor
import Synchronization

/// One round of dispatch-source traffic: timer sources (repeating and one-shot) and
/// user-data add sources, created, fed, and cancelled.
///
/// Checks: a cancel handler runs exactly once, after which no event handler runs; a
/// one-shot timer fires once and not early; the `data` a user-data add source delivers
/// sums to what was added, from several threads.
struct SourceRound {
    /// What the handlers of one source record.
    private final class Record: Sendable {
        let events = Atomic<Int>(0)
        let cancels = Atomic<Int>(0)
        let sum = Atomic<Int>(0)
        let cancelled = DispatchSemaphore(value: 0)
        let reached = DispatchSemaphore(value: 0)
    }

    let producer: Int
    let ledger: Ledger

    func run(using rng: inout SplitMix64) {
        let queue = DispatchQueue(
            label: "stress.\(producer).sources", attributes: rng.chance(50) ? .concurrent : [])
        switch rng.below(3) {
        case 0: repeatingTimer(on: queue, using: &rng)
        case 1: oneShotTimer(on: queue, using: &rng)
        default: userDataAdd(on: queue, using: &rng)
        }
    }

    private func repeatingTimer(on queue: DispatchQueue, using rng: inout SplitMix64) {
        let record = Record(), ledger = self.ledger
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler {
            ledger.check(record.cancels.load(ordering: .acquiring) == 0, "timer event handler ran after its cancel handler")
            ledger.taskRan()
            if record.events.add(1, ordering: .relaxed).newValue == 3 { record.reached.signal() }
        }
        timer.setCancelHandler { finishCancel(record) }
        timer.schedule(deadline: .now(), repeating: .microseconds(200 + rng.below(800)), leeway: .microseconds(rng.below(500)))
        timer.activate()
        if rng.chance(50) {
            ledger.check(record.reached.wait(timeout: .now() + .seconds(10)) == .success, "repeating timer did not fire 3 times in 10 s")
        }
        timer.cancel()
        awaitCancel(record, what: "repeating timer")
    }

    private func oneShotTimer(on queue: DispatchQueue, using rng: inout SplitMix64) {
        let record = Record(), ledger = self.ledger
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let deadline = DispatchTime.now() + .microseconds(rng.below(2000))
        timer.setEventHandler {
            ledger.check(DispatchTime.now() >= deadline, "one-shot timer fired early")
            ledger.taskRan()
            record.events.add(1, ordering: .relaxed)
            record.reached.signal()
        }
        timer.setCancelHandler { finishCancel(record) }
        timer.schedule(deadline: deadline, leeway: .microseconds(rng.below(300)))
        timer.activate()
        ledger.check(record.reached.wait(timeout: .now() + .seconds(10)) == .success, "one-shot timer did not fire in 10 s")
        // Another firing would arrive within a few milliseconds; give it the chance.
        if rng.chance(20) { _ = record.reached.wait(timeout: .now() + .milliseconds(5)) }
        timer.cancel()
        awaitCancel(record, what: "one-shot timer")
        let fired = record.events.load(ordering: .acquiring)
        ledger.check(fired == 1, "one-shot timer fired \(fired) times")
    }

    private func userDataAdd(on queue: DispatchQueue, using rng: inout SplitMix64) {
        let record = Record(), ledger = self.ledger
        let source = DispatchSource.makeUserDataAddSource(queue: queue)
        let adders = 1 + rng.below(4), addsEach = 10 + rng.below(200)
        var total = 0
        var amounts: [Int] = []
        for _ in 0..<adders {
            let amount = 1 + rng.below(5)
            amounts.append(amount)
            total += amount * addsEach
        }
        let target = total
        source.setEventHandler {
            ledger.check(record.cancels.load(ordering: .acquiring) == 0, "user-data event handler ran after its cancel handler")
            ledger.taskRan()
            let data = Int(source.data)
            ledger.check(data > 0, "user-data add source delivered 0")
            if record.sum.add(data, ordering: .relaxed).newValue == target { record.reached.signal() }
        }
        source.setCancelHandler { finishCancel(record) }
        source.activate()
        let adding = DispatchGroup(), shared = SendableSource(source)
        for amount in amounts {
            DispatchQueue.global().async(group: adding) {
                for _ in 0..<addsEach { shared.source.add(data: UInt(amount)) }
            }
        }
        ledger.check(adding.wait(timeout: .now() + .seconds(30)) == .success, "user-data adders did not finish in 30 s")
        let delivered = record.reached.wait(timeout: .now() + .seconds(10)) == .success
        ledger.check(delivered, "user-data add source delivered \(record.sum.load(ordering: .relaxed)) of \(target)")
        source.cancel()
        awaitCancel(record, what: "user-data source")
        let sum = record.sum.load(ordering: .acquiring)
        ledger.check(sum == target, "user-data add source delivered \(sum), added \(target)")
    }

    private func awaitCancel(_ record: Record, what: String) {
        ledger.check(record.cancelled.wait(timeout: .now() + .seconds(10)) == .success, "\(what): cancel handler did not run in 10 s")
        let cancels = record.cancels.load(ordering: .acquiring)
        ledger.check(cancels == 1, "\(what): cancel handler ran \(cancels) times")
    }

    private func finishCancel(_ record: Record) {
        record.cancels.add(1, ordering: .releasing)
        record.cancelled.signal()
    }
}

/// Hands a user-data source to other threads: sources are thread-safe, but the protocol
/// existential is not marked `Sendable`.
private struct SendableSource: @unchecked Sendable {
    let source: any DispatchSourceUserDataAdd
    init(_ source: any DispatchSourceUserDataAdd) { self.source = source }
}
