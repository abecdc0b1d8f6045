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

@testable import ConveyorCore
import Synchronization
import Testing

/// Counts live instances.
private final class Tracked: @unchecked Sendable {
    static let live = Atomic<Int>(0)
    init() { Self.live.add(1, ordering: .relaxed) }
    deinit { Self.live.subtract(1, ordering: .releasing) }
    func touch() {}
}

/// What a closure captured is released before anyone is told the closure is done
/// (issue 11, finding 9: `group.wait()` returned while the captured object was alive in
/// about 15,000 of 20,000 rounds; libdispatch: none).
@Suite(.serialized) struct CaptureLifetimeTests {
    private static let rounds = 20_000

    /// Runs `rounds` rounds of `round` and returns how often an object was alive after it.
    private func aliveAfter(rounds: Int, _ round: () -> Void) -> Int {
        var alive = 0
        for _ in 0..<rounds {
            round()
            if Tracked.live.load(ordering: .acquiring) != 0 {
                alive += 1
                _ = waitUntil { Tracked.live.load(ordering: .acquiring) == 0 }
            }
        }
        return alive
    }

    @Test func closureOfAGroupIsReleasedBeforeWaitReturns() {
        let queues = [DispatchQueue.global(), DispatchQueue(label: "serial"),
                      DispatchQueue(label: "concurrent", attributes: .concurrent)]
        for queue in queues {
            let alive = aliveAfter(rounds: Self.rounds) {
                let group = DispatchGroup()
                do {
                    let object = Tracked()
                    queue.async(group: group) { object.touch() }
                }
                group.wait()
            }
            print("captured object alive after group.wait() on '\(queue.label)': \(alive) of \(Self.rounds) rounds")
            #expect(alive == 0)
        }
    }

    @Test func workItemOfAGroupIsReleasedBeforeWaitReturns() {
        let queue = DispatchQueue(label: "items")
        let alive = aliveAfter(rounds: Self.rounds / 4) {
            let group = DispatchGroup()
            do {
                let object = Tracked()
                queue.async(group: group, execute: DispatchWorkItem { object.touch() })
            }
            group.wait()
        }
        print("work item's captured object alive after group.wait(): \(alive) of \(Self.rounds / 4) rounds")
        #expect(alive == 0)
    }

    @Test func closureOfAGroupIsReleasedBeforeNotifyRuns() {
        let queue = DispatchQueue(label: "notify-source", attributes: .concurrent)
        let notified = DispatchSemaphore(value: 0)
        let aliveInNotify = Atomic<Int>(0)
        let rounds = Self.rounds / 4
        for _ in 0..<rounds {
            let group = DispatchGroup()
            do {
                let object = Tracked()
                queue.async(group: group) { object.touch() }
            }
            group.notify(queue: .global()) {
                if Tracked.live.load(ordering: .acquiring) != 0 { aliveInNotify.add(1, ordering: .relaxed) }
                notified.signal()
            }
            notified.wait()
            _ = waitUntil { Tracked.live.load(ordering: .acquiring) == 0 }
        }
        print("captured object alive in group.notify: \(aliveInNotify.load(ordering: .relaxed)) of \(rounds) rounds")
        #expect(aliveInNotify.load(ordering: .relaxed) == 0)
    }
}
