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
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// `sync` callers of a concurrent queue that must wait (behind a barrier, or a barrier
/// behind readers) are granted by the thread that frees the queue, not by a drain on a
/// pool worker (libdispatch hands over to sync waiters the same way).
@Suite struct ConcurrentSyncHandoffTests {
    /// Two threads mix `sync` reads and `sync(flags: .barrier)` writes: every read sees a
    /// consistent pair, every write lands, and the queue never needed a drain on the pool
    /// (its drain job, made the first time a drain is scheduled, was never made).
    @Test func contendedSyncReadersAndWritersNeverScheduleADrain() {
        let queue = DispatchQueue(label: "rw", attributes: .concurrent)
        final class Pair: @unchecked Sendable { var first = 0, second = 0 }
        let pair = Pair()
        let torn = Atomic<Int>(0)
        let rounds = 20_000
        let waitersBefore = syncWaitersQueued.load(ordering: .relaxed)
        // Batches until the two threads contended: on a busy machine the kernel can run
        // them one after the other, and then no `sync` ever waits (seen once in 40 runs
        // beside 16 threads burning CPU). A writer also gives up its CPU now and then while
        // it holds the queue, which makes the other thread wait.
        var batches = 0
        repeat {
            runOnTwoThreadsAtOnce { _ in
                for round in 0..<rounds {
                    if round % 10 == 0 {
                        queue.sync(flags: .barrier) {
                            pair.first += 1
                            spin()   // widen the window in which the other thread must wait
                            if round % 40 == 0 { sched_yield() }
                            pair.second += 1
                        }
                    } else {
                        let (first, second) = queue.sync { () -> (Int, Int) in
                            let first = pair.first
                            spin()
                            return (first, pair.second)
                        }
                        if first != second { torn.add(1, ordering: .relaxed) }
                    }
                }
            }
            batches += 1
        } while syncWaitersQueued.load(ordering: .relaxed) - waitersBefore <= 100 && batches < 20
        let writes = batches * 2 * rounds / 10
        #expect(queue.sync { (pair.first, pair.second) } == (writes, writes))
        #expect(torn.load(ordering: .relaxed) == 0)
        // Contention happened (else this test proves nothing) ...
        #expect(syncWaitersQueued.load(ordering: .relaxed) - waitersBefore > 100)
        // ... and no waiter needed a drain on the pool.
        #expect(queue.drainJob == nil)
    }

    /// An `async` item queued behind a sync waiter still runs: the thread that grants the
    /// waiters stops at it and schedules the drain for it.
    @Test func asyncWorkBehindSyncWaitersStillRuns() {
        let queue = DispatchQueue(label: "rw-async", attributes: .concurrent)
        let done = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        runOnTwoThreadsAtOnce { index in
            for round in 0..<2_000 {
                if round % 10 == 0 {
                    queue.sync(flags: .barrier) { _ = ran.add(1, ordering: .relaxed) }
                } else if round % 10 == 5 {
                    queue.async(flags: index == 0 ? .barrier : []) {
                        ran.add(1, ordering: .relaxed)
                        done.signal()
                    }
                } else {
                    queue.sync { _ = ran.add(1, ordering: .relaxed) }
                }
            }
        }
        for _ in 0..<400 { #expect(done.wait(timeout: deadline()) == .success) }
        #expect(queue.sync { ran.load(ordering: .relaxed) } == 4_000)
    }

    /// Runs `body(0)` and `body(1)` on two plain threads that start together (each waits
    /// until the other has started), and returns when both are done.
    private func runOnTwoThreadsAtOnce(_ body: @escaping @Sendable (Int) -> Void) {
        let started = Atomic<Int>(0)
        let threads = (0..<2).map { index in
            TestThread {
                started.add(1, ordering: .relaxed)
                while started.load(ordering: .relaxed) < 2 {}
                body(index)
            }
        }
        for thread in threads { thread.join() }
    }

    /// A few hundred nanoseconds of work that the optimizer keeps.
    private func spin() {
        var value = 0
        for index in 0..<200 { value = value &* 31 &+ index }
        withExtendedLifetime(value) {}
    }
}
