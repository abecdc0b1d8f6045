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

import CConveyor
import Synchronization
import Testing
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif

/// Removing a callback waits for that callback, not for whichever ran before it.
@Suite struct EventLoopCompletionTests {
    /// Two timers fire in one batch. A thread cancelling the first waits for it; while the
    /// event thread is between the end of the first and the wake-up of its waiter (the
    /// second already claimed), another thread cancels the second. Its cancel must not
    /// return until the second callback has returned (issue 11: the count of finished
    /// callbacks was bumped after unlocking, so that cancel took the first one's bump for
    /// its own and returned while the second ran — a source's fd could be closed under it).
    @Test func removalWaitsForItsOwnCallbackNotThePreviousOne() {
        let loop = EventLoop(name: "test.completion")
        defer { loop.shutdown() }
        let handles = TestLog<TimerHandle>()
        let firstHandle = TestLog<TimerHandle>()
        let runs = Atomic<Int>(0)
        let secondFinished = Atomic<Bool>(false)
        let cancelOfSecondSawItFinished = TestLog<Bool>()
        let secondCancelled = DispatchSemaphore(value: 0)
        let hookCalls = Atomic<Int>(0)
        let waiters: @Sendable () -> Int = { loop.lock.withLock { loop.completionWaiters } }

        loop.beforeCompletionWake = {
            guard hookCalls.add(1, ordering: .relaxed).newValue == 1 else { return }
            // The first callback has finished and the second is claimed: cancel it now.
            let second = handles.values.first { $0 != firstHandle.values.first }!
            startThread {
                _ = loop.cancelTimer(second)
                cancelOfSecondSawItFinished.append(secondFinished.load(ordering: .acquiring))
                secondCancelled.signal()
            }
            // Until that thread waits (or, before the fix, has already returned).
            _ = waitUntil(seconds: 10) { waiters() >= 2 || cancelOfSecondSawItFinished.count > 0 }
        }
        let fireAt = Clock.monotonicNanoseconds() + 1_000 * 1_000_000   // both added before it, even on a busy machine
        for _ in 0..<2 {
            handles.append(loop.addTimer(clock: .monotonic, deadline: fireAt, leeway: 0) { handle in
                if runs.add(1, ordering: .relaxed).newValue == 1 {
                    firstHandle.append(handle)
                    startThread { _ = loop.cancelTimer(handle) }
                    _ = waitUntil(seconds: 10) { waiters() >= 1 }
                } else {
                    let until = Clock.monotonicNanoseconds() + 20 * 1_000_000
                    while Clock.monotonicNanoseconds() < until { sched_yield() }
                    secondFinished.store(true, ordering: .releasing)
                }
            })
        }
        #expect(secondCancelled.wait(timeout: deadline()) == .success)
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(hookCalls.load(ordering: .relaxed) >= 1)
        #expect(cancelOfSecondSawItFinished.values == [true])
    }
}
