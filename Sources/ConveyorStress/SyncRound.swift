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

/// One round of the synchronization primitives: group notify, semaphores as a limiter
/// and as a hand-off, work-item notify, and tasks that block until all of them started
/// (the pool must add threads for them at once).
struct SyncRound {
    let producer: Int
    let ledger: Ledger

    /// `quiet`: skip the rounds that block many workers (the pool grows for them and the
    /// extra threads need the idle timeout to retire) — used at the end of the run.
    func run(using rng: inout SplitMix64, quiet: Bool) {
        if quiet {
            groupNotify(using: &rng)
            return
        }
        switch rng.below(4) {
        case 0: groupNotify(using: &rng)
        case 1: semaphoreLimit(using: &rng)
        case 2: pingPong(using: &rng)
        default: allStartedBarrier(using: &rng)
        }
    }

    /// `notify` runs once, after every task that entered the group before it.
    private func groupNotify(using rng: inout SplitMix64) {
        let ledger = self.ledger, group = DispatchGroup(), done = Atomic<Int>(0)
        let tasks = 1 + rng.below(40)
        let queue = DispatchQueue(label: "stress.\(producer).group", attributes: .concurrent)
        for _ in 0..<tasks {
            if rng.chance(30) {
                group.enter()
                DispatchQueue.global().async {
                    ledger.taskRan()
                    done.add(1, ordering: .releasing)
                    group.leave()
                }
            } else {
                queue.async(group: group) {
                    ledger.taskRan()
                    done.add(1, ordering: .releasing)
                }
            }
        }
        let notified = DispatchSemaphore(value: 0), notifies = Atomic<Int>(0)
        group.notify(queue: .global()) {
            let seen = done.load(ordering: .acquiring)
            ledger.check(seen == tasks, "group notify ran with \(seen) of \(tasks) tasks done")
            notifies.add(1, ordering: .relaxed)
            notified.signal()
        }
        ledger.check(notified.wait(timeout: .now() + .seconds(30)) == .success, "group notify did not run in 30 s")
        ledger.check(notifies.load(ordering: .relaxed) == 1, "group notify ran \(notifies.load(ordering: .relaxed)) times")
    }

    /// A semaphore of value k admits at most k tasks at once.
    private func semaphoreLimit(using rng: inout SplitMix64) {
        let ledger = self.ledger, limit = 1 + rng.below(3)
        let semaphore = DispatchSemaphore(value: limit), inside = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<(4 + rng.below(20)) {
            DispatchQueue.global().async(group: group) {
                ledger.check(semaphore.wait(timeout: .now() + .seconds(30)) == .success, "semaphore limiter wait timed out")
                let n = inside.add(1, ordering: .acquiringAndReleasing).newValue
                ledger.check(n <= limit, "\(n) tasks inside a semaphore of value \(limit)")
                ledger.taskRan()
                inside.subtract(1, ordering: .acquiringAndReleasing)
                semaphore.signal()
            }
        }
        ledger.check(group.wait(timeout: .now() + .seconds(30)) == .success, "semaphore limiter tasks did not finish in 30 s")
    }

    /// Two semaphores pass a turn between this thread and a task, and a work item's
    /// notify runs after it.
    private func pingPong(using rng: inout SplitMix64) {
        let ledger = self.ledger, rounds = 1 + rng.below(50)
        let ping = DispatchSemaphore(value: 0), pong = DispatchSemaphore(value: 0)
        let item = DispatchWorkItem {
            for _ in 0..<rounds {
                guard ping.wait(timeout: .now() + .seconds(30)) == .success else {
                    ledger.fail("ping-pong: ping wait timed out")
                    return
                }
                ledger.taskRan()
                pong.signal()
            }
        }
        let notified = DispatchSemaphore(value: 0)
        item.notify(queue: .global()) {
            ledger.check(!item.isCancelled, "ping-pong item cancelled?")
            notified.signal()
        }
        DispatchQueue.global(qos: .utility).async(execute: item)
        for _ in 0..<rounds {
            ping.signal()
            if pong.wait(timeout: .now() + .seconds(30)) == .timedOut {
                ledger.fail("ping-pong: pong wait timed out")
                return
            }
        }
        ledger.check(item.wait(timeout: .now() + .seconds(30)) == .success, "ping-pong item wait timed out")
        ledger.check(notified.wait(timeout: .now() + .seconds(30)) == .success, "work item notify did not run")
    }

    /// n tasks on a global queue each block until all n have started: needs n threads.
    private func allStartedBarrier(using rng: inout SplitMix64) {
        let ledger = self.ledger, n = 2 + rng.below(24)
        let started = Atomic<Int>(0), allIn = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<n {
            DispatchQueue.global().async(group: group) {
                ledger.taskRan()
                if started.add(1, ordering: .acquiringAndReleasing).newValue == n {
                    for _ in 0..<n { allIn.signal() }
                }
                ledger.check(allIn.wait(timeout: .now() + .seconds(20)) == .success, "\(n) blocking tasks did not all start in 20 s")
            }
        }
        ledger.check(group.wait(timeout: .now() + .seconds(30)) == .success, "blocking tasks did not finish in 30 s")
    }
}
