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

@Suite struct ConcurrentPerformTests {
    /// `dispatch_apply` on a concurrent queue from inside one of its own blocks, at width 1:
    /// the call ends, the caller running every iteration. A helper that waited for the
    /// width the caller's block holds would never have let it end.
    @Test func applyOnAQueueFromInsideItsOwnBlockAtWidthOneEnds() {
        let queue = DispatchQueue(label: "apply-reentrant", attributes: .concurrent)
        queue.setWidthLimit(1)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let done = DispatchSemaphore(value: 0)
        let count = Counter()
        let onQueue = Counter()
        queue.async {
            DispatchQueue.concurrentPerform(iterations: 64, on: queue) { _ in
                usleep(200)   // long enough for a helper to come while iterations are left
                count.increment()
                if DispatchQueue.getSpecific(key: key) == 7 { onQueue.increment() }
            }
            done.signal()
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(count.current == 64 && onQueue.current == 64)
    }

    @Test func hundredThousandIndicesEachRunExactlyOnce() {
        let iterations = 100_000
        let hits = AtomicCounters(count: iterations)
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            hits.increment(index)
        }
        #expect(hits.indices(where: { $0 != 1 }).isEmpty)
        #expect(hits.total == iterations)
    }

    @Test func smallAndEmptyCounts() {
        for iterations in [0, 1, 2, 3, 7] {
            let hits = AtomicCounters(count: max(iterations, 1))
            DispatchQueue.concurrentPerform(iterations: iterations) { hits.increment($0) }
            #expect(hits.total == iterations)
            #expect(hits.indices(where: { $0 > 1 }).isEmpty)
        }
        DispatchQueue.concurrentPerform(iterations: -5) { _ in Issue.record("ran an index of a negative count") }
    }

    /// Each index waits until an index has run on the calling thread: if the caller only
    /// waited, the helper's first index would wait forever.
    @Test func theCallerTakesPart() {
        let caller = currentThreadID()
        let callerRan = DispatchSemaphore(value: 0)
        let timedOut = Counter()
        let iterations = WorkerPool.shared.cpuCount * 4
        DispatchQueue.concurrentPerform(iterations: iterations) { _ in
            if currentThreadID() == caller {
                for _ in 0..<iterations { callerRan.signal() }   // release every other index
            } else if timedOut.current > 0 {
                return   // already failed: do not wait again for each index
            } else if callerRan.wait(timeout: deadline(seconds: 20)) == .timedOut {
                timedOut.increment()
            }
        }
        #expect(timedOut.current == 0)
        while callerRan.wait(timeout: .now()) == .success {}   // take back what was not used
    }

    /// Every pair runs once, and (as `concurrentPerform` documents) a nested call runs its
    /// indices on the thread that made it: it neither waits for helpers nor asks for threads.
    @Test func nestedEightByEightRunsEveryPairOnceInline() {
        let hits = AtomicCounters(count: 64)
        let offThread = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { outer in
            let outerThread = currentThreadID()
            DispatchQueue.concurrentPerform(iterations: 8) { inner in
                if currentThreadID() != outerThread { offThread.increment() }
                hits.increment(outer * 8 + inner)
                usleep(200)   // long enough for a helper to join, if one were asked for
            }
        }
        #expect(hits.indices(where: { $0 != 1 }).isEmpty)
        #expect(offThread.current == 0)
    }

    /// In a child process, so that no other test's threads are counted.
    @Test func nestedCallsKeepTheThreadCountBounded() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            exitIfStillRunning(after: 60)
            let before = ThreadInfo.processThreadCount
            let most = Atomic<Int>(0)
            let hits = AtomicCounters(count: 8 * 8 * 8)
            DispatchQueue.concurrentPerform(iterations: 8) { a in
                DispatchQueue.concurrentPerform(iterations: 8) { b in
                    DispatchQueue.concurrentPerform(iterations: 8) { c in
                        usleep(200)
                        most.max(ThreadInfo.processThreadCount, ordering: .relaxed)
                        hits.increment(a * 64 + b * 8 + c)
                    }
                }
            }
            // The same from 16 pool tasks at once: each outer call blocks its worker while
            // it waits for its helpers, so the pool may add threads, but not without bound.
            let group = DispatchGroup()
            for _ in 0..<16 {
                DispatchQueue.global().async(group: group) {
                    DispatchQueue.concurrentPerform(iterations: 8) { _ in
                        DispatchQueue.concurrentPerform(iterations: 8) { _ in
                            usleep(100)
                            most.max(ThreadInfo.processThreadCount, ordering: .relaxed)
                        }
                    }
                }
            }
            let finished = group.wait(timeout: .now() + .seconds(60)) == .success
            let peak = most.load(ordering: .relaxed)
            let cpus = WorkerPool.shared.cpuCount
            let allOnce = hits.indices(where: { $0 != 1 }).isEmpty
            let message = "threads before \(before), peak \(peak), cpus \(cpus), finished \(finished), every index once \(allOnce)"
            // The nested 8 x 8 x 8 alone needs no thread beyond one per CPU (plus the
            // watchdog and event threads); 16 blocking callers may add one thread each.
            if !finished || !allOnce || peak > before + cpus + 2 + 16 + cpus { exitReportingFailure(message) }
            writeToStandardError(message + "\n")
        }
        expectNoFailureReport(result)
        print("nested concurrentPerform: \(standardError(of: result))")
    }

    @Test func nestedEightByEightAddsNoThreadBeyondOnePerCPU() async {
        // The bound for the plain nested case alone (no pool tasks): one thread per CPU.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            exitIfStillRunning(after: 60)
            let before = ThreadInfo.processThreadCount
            let most = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    usleep(500)
                    most.max(ThreadInfo.processThreadCount, ordering: .relaxed)
                }
            }
            let peak = most.load(ordering: .relaxed)
            let message = "threads before \(before), peak \(peak), cpus \(WorkerPool.shared.cpuCount)"
            // Workers: one per CPU, plus the pool's watchdog thread, plus one thread the
            // watchdog may add if a loaded machine delays the helper's start.
            if peak > before + WorkerPool.shared.cpuCount + 2 { exitReportingFailure(message) }
            writeToStandardError(message + "\n")
        }
        expectNoFailureReport(result)
        print("nested 8 x 8: \(standardError(of: result))")
    }

    /// Every pool worker is busy (spinning until the call returns): the caller still
    /// runs every index itself if no helper gets a thread.
    @Test func finishesWhileEveryWorkerIsBusy() {
        let release = Atomic<Bool>(false)
        let spinning = Counter()
        let group = DispatchGroup()
        let busy = WorkerPool.shared.cpuCount
        for _ in 0..<busy {
            DispatchQueue.global().async(group: group) {
                spinning.increment()
                let end = DispatchTime.now() + .seconds(60)
                while !release.load(ordering: .relaxed) && DispatchTime.now() < end { spinPause() }
            }
        }
        #expect(waitUntil { spinning.current == busy })
        let hits = AtomicCounters(count: 10_000)
        DispatchQueue.concurrentPerform(iterations: 10_000) { hits.increment($0) }
        release.store(true, ordering: .relaxed)
        #expect(hits.indices(where: { $0 != 1 }).isEmpty)
        #expect(group.wait(timeout: deadline()) == .success)
    }

    /// Every thread the pool may ever have is blocked on a semaphore (the hard cap is
    /// reached, so no helper can ever start): the call finishes on the caller alone.
    /// In a child process, because it fills the pool to its cap.
    @Test func finishesWhenEveryPoolThreadUpToTheCapIsBlocked() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            exitIfStillRunning(after: 60)
            let pool = WorkerPool.shared
            let gate = DispatchSemaphore(value: 0)
            let blocked = Counter()
            let group = DispatchGroup()
            for _ in 0..<pool.maxThreads {
                DispatchQueue.global().async(group: group) {
                    blocked.increment()
                    gate.wait()
                }
            }
            guard waitUntil(seconds: 60, { blocked.current == pool.maxThreads }) else {
                writeToStandardError("only \(blocked.current) of \(pool.maxThreads) tasks started\n")
                exit(2)
            }
            let caller = currentThreadID()
            let elsewhere = Counter()
            let hits = AtomicCounters(count: 1_000)
            DispatchQueue.concurrentPerform(iterations: 1_000) { index in
                if currentThreadID() != caller { elsewhere.increment() }
                hits.increment(index)
            }
            let allOnce = hits.indices(where: { $0 != 1 }).isEmpty
            let message = "pool threads \(pool.liveThreads.load(ordering: .relaxed)) of \(pool.maxThreads); indices run off the caller: \(elsewhere.current)"
            for _ in 0..<pool.maxThreads { gate.signal() }
            let drained = group.wait(timeout: .now() + .seconds(60)) == .success
            if !allOnce || !drained { exitReportingFailure(message + ", every index once \(allOnce), blocked tasks drained \(drained)") }
            writeToStandardError(message + "\n")
        }
        expectNoFailureReport(result)
        print("concurrentPerform at the thread cap: \(standardError(of: result))")
    }

    /// The brief's plain case: all the pool's runnable workers wait on a semaphore.
    @Test func finishesWhileEveryWorkerIsBlockedOnASemaphore() {
        let gate = DispatchSemaphore(value: 0)
        let blocked = Counter()
        let group = DispatchGroup()
        let count = WorkerPool.shared.cpuCount * 2
        for _ in 0..<count {
            DispatchQueue.global().async(group: group) {
                blocked.increment()
                gate.wait()
            }
        }
        #expect(waitUntil { blocked.current == count })
        let hits = AtomicCounters(count: 10_000)
        DispatchQueue.concurrentPerform(iterations: 10_000) { hits.increment($0) }
        #expect(hits.indices(where: { $0 != 1 }).isEmpty)
        for _ in 0..<count { gate.signal() }
        #expect(group.wait(timeout: deadline()) == .success)
    }

    @Test func runsFromInsideAQueue() {
        let queue = DispatchQueue(label: "apply.from.queue")
        let hits = AtomicCounters(count: 1_000)
        queue.sync {
            DispatchQueue.concurrentPerform(iterations: 1_000) { hits.increment($0) }
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 1_000) { hits.increment($0) }
            done.signal()
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(hits.indices(where: { $0 != 2 }).isEmpty)
    }
}

/// A fixed array of atomic counters, one per index.
final class AtomicCounters: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    let count: Int

    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        for index in 0..<count { (storage + index).initialize(to: Atomic(0)) }
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    func increment(_ index: Int) {
        (storage + index).pointee.add(1, ordering: .relaxed)
    }

    func value(_ index: Int) -> Int { (storage + index).pointee.load(ordering: .relaxed) }

    var total: Int { (0..<count).reduce(0) { $0 + value($1) } }

    func indices(where predicate: (Int) -> Bool) -> [Int] {
        (0..<count).filter { predicate(value($0)) }
    }
}
