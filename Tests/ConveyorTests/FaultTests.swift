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
#if canImport(Glibc)
import Glibc
#endif

/// Bad arguments get a clear trap or a defined behaviour, never a hang; an exhausted
/// thread cap makes work wait without stopping Conveyor's own machinery.
@Suite struct FaultTests {
    /// A read or write source on a descriptor that is not open (a server's source racing
    /// a close) neither crashes the process nor fires; it cancels normally and its cancel
    /// handler runs, as libdispatch's does on Linux (issue 25, finding 6: it trapped). In a
    /// child process, since before the fix it killed the process. Also a closed number
    /// that the event loop's own epoll fd now has, which epoll refused with EINVAL.
    @Test func sourcesOnAClosedDescriptorNeverFireAndCancel() async {
        await #expect(processExitsWith: .success) {
            // A number no file uses (a freshly closed one could be reused by the event thread).
            var closedFD: Int32 = 900
            while fcntl(closedFD, F_GETFD) != -1 { closedFD += 1 }
            let fired = Atomic<Int>(0)
            let cancelled = DispatchSemaphore(value: 0)
            var sources: [any DispatchSourceProtocol] = []
            for fd in [closedFD, EventLoop.shared.epollFD] {
                sources.append(DispatchSource.makeReadSource(fileDescriptor: fd, queue: .global()))
                sources.append(DispatchSource.makeWriteSource(fileDescriptor: fd, queue: .global()))
            }
            for source in sources {
                source.setEventHandler { fired.wrappingAdd(1, ordering: .relaxed) }
                source.setCancelHandler { cancelled.signal() }
                source.activate()
            }
            // Absence can only be sampled: a short look, then the same after cancelling.
            usleep(100_000)
            guard fired.load(ordering: .relaxed) == 0, sources.allSatisfy({ !$0.isCancelled }) else { exit(1) }
            for source in sources { source.cancel() }
            for _ in sources where cancelled.wait(timeout: .now() + 30) == .timedOut { exit(2) }
            let errors = sources.compactMap { (($0 as? DispatchSource)?.monitor as? DescriptorMonitor)?.registrationError }
            guard errors == [EBADF, EBADF, EBADF, EBADF], fired.load(ordering: .relaxed) == 0 else { exit(3) }
            exit(0)
        }
    }

    /// A zero repeat interval is taken as 1 ns, as libdispatch does: the timer fires
    /// continuously, coalesced into `data`, and cancels cleanly.
    @Test func aZeroTimerIntervalFiresAndCancels() {
        let queue = DispatchQueue(label: "zero-interval")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let fired = Atomic<Int>(0)
        let cancelled = DispatchSemaphore(value: 0)
        timer.setEventHandler { fired.wrappingAdd(1, ordering: .relaxed) }
        timer.setCancelHandler { cancelled.signal() }
        timer.schedule(deadline: .now(), repeating: .nanoseconds(0))
        timer.activate()
        #expect(waitUntil { fired.load(ordering: .relaxed) >= 3 })
        timer.cancel()
        #expect(cancelled.wait(timeout: deadline()) == .success)
    }

    @Test func concurrentPerformOfZeroIterationsReturns() {
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 0) { _ in counter.increment() }
        DispatchQueue.concurrentPerform(iterations: -5) { _ in counter.increment() }
        #expect(counter.current == 0)
    }

    /// Every pool thread up to the cap blocks: new work waits, but timers still fire and
    /// sources still deliver, and everything runs once one thread is free again.
    @Test func anExhaustedThreadCapDegradesWithoutDeadlock() async {
        await #expect(processExitsWith: .exitCode(0)) {
            let pool = WorkerPool.shared
            let release = DispatchSemaphore(value: 0)
            let blocked = Atomic<Int>(0)
            for _ in 0..<(pool.maxThreads + 8) {
                DispatchQueue.global().async {
                    blocked.wrappingAdd(1, ordering: .relaxed)
                    _ = release.wait(timeout: .now() + 60)
                }
            }
            let end = DispatchTime.now() + 30
            while blocked.load(ordering: .relaxed) < pool.maxThreads && DispatchTime.now() < end { usleep(1000) }
            guard blocked.load(ordering: .relaxed) >= pool.maxThreads else { exit(2) }

            // The event thread is not a pool thread: timers fire and sources merge data.
            let timerFired = Atomic<Bool>(false)
            EventLoop.shared.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 5_000_000, leeway: 0) { _ in
                timerFired.store(true, ordering: .releasing)
            }
            let ranAfter = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { ranAfter.signal() }
            let source = DispatchSource.makeUserDataAddSource(queue: .global())
            let delivered = DispatchSemaphore(value: 0)
            source.setEventHandler { if source.data == 3 { delivered.signal() } }
            source.activate()
            source.add(data: 1)
            source.add(data: 2)
            while !timerFired.load(ordering: .acquiring) && DispatchTime.now() < end { usleep(1000) }
            guard timerFired.load(ordering: .acquiring) else { exit(3) }
            // Work waits while the cap is exhausted ...
            if ranAfter.wait(timeout: .now() + .milliseconds(100)) == .success { exit(4) }
            // ... and runs once threads are free again.
            for _ in 0..<(pool.maxThreads + 8) { release.signal() }
            guard ranAfter.wait(timeout: .now() + 30) == .success else { exit(5) }
            guard delivered.wait(timeout: .now() + 30) == .success else { exit(6) }
            source.cancel()
            exit(0)
        }
    }
}
