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

/// A recursive pthread mutex, as a caller of `sync` might hold.
private final class RecursiveMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    func lock() { pthread_mutex_lock(mutex) }
    /// Whether the calling thread could take it (again); never blocks.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// `sync` through a chain of target queues runs the closure on the caller's thread
/// (issue 11, finding 1: it ran on the thread draining the target, so a recursive lock
/// the caller held deadlocked and `.onQueue(target)` failed).
@Suite struct SyncChainTests {
    /// What a `sync` closure saw of its thread.
    private struct Seen: Equatable {
        var thread: Int32 = 0
        var relocked = false
        var onTarget = false
    }

    private func syncAndLook(_ queue: DispatchQueue, target: DispatchQueue, barrier: Bool = false) -> Seen {
        let mutex = RecursiveMutex()
        mutex.lock()
        defer { mutex.unlock() }
        var seen = Seen()
        let body = {
            seen.thread = currentThreadID()
            seen.relocked = mutex.tryLock()
            if seen.relocked { mutex.unlock() }
            seen.onTarget = isRunning(on: target, exclusively: target.kind != .concurrent)
        }
        if barrier { queue.sync(flags: .barrier, execute: body) } else { queue.sync(execute: body) }
        return seen
    }

    @Test func serialThroughSerialRunsOnTheCaller() {
        let target = DispatchQueue(label: "target")
        let child = DispatchQueue(label: "child", target: target)
        let seen = syncAndLook(child, target: target)
        #expect(seen == Seen(thread: currentThreadID(), relocked: true, onTarget: true))
        #expect(isRunning(on: target, exclusively: false) == false)
    }

    @Test func serialThroughConcurrentRunsOnTheCaller() {
        let target = DispatchQueue(label: "wide", attributes: .concurrent)
        let child = DispatchQueue(label: "child", target: target)
        #expect(syncAndLook(child, target: target) == Seen(thread: currentThreadID(), relocked: true, onTarget: true))
    }

    @Test func concurrentThroughSerialRunsOnTheCaller() {
        let target = DispatchQueue(label: "narrow")
        let child = DispatchQueue(label: "wide-child", attributes: .concurrent, target: target)
        #expect(syncAndLook(child, target: target) == Seen(thread: currentThreadID(), relocked: true, onTarget: true))
        #expect(syncAndLook(child, target: target, barrier: true)
                == Seen(thread: currentThreadID(), relocked: true, onTarget: true))
    }

    /// The caller holds every level while its closure runs, so a `sync` on the target
    /// from inside still traps as a deadlock (it used to be caught on the draining thread).
    @Test func syncOnTheTargetFromInsideAChainSyncTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let target = DispatchQueue(label: "held-target")
            let child = DispatchQueue(label: "held-child", target: target)
            child.sync { target.sync {} }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("sync called on queue 'held-target' already owned by the current thread"), "stderr was: \(stderr)")
    }

    /// The target is busy when `sync` is called: the caller waits its turn (after the items
    /// submitted before it, on both levels), then still runs on its own thread.
    @Test func busyChainKeepsOrderAndRunsOnTheCaller() {
        let root = DispatchQueue(label: "root")
        let middle = DispatchQueue(label: "middle", target: root)
        let child = DispatchQueue(label: "child", target: middle)
        let log = TestLog<String>()
        let gate = DispatchSemaphore(value: 0)
        root.async { _ = gate.wait(timeout: deadline()) }
        child.async { log.append("child before") }
        middle.async { log.append("middle before") }
        let caller = DispatchSemaphore(value: 0)
        let seenThread = Atomic<Int32>(0)
        let callerThread = Atomic<Int32>(0)
        startThread {
            callerThread.store(currentThreadID(), ordering: .relaxed)
            child.sync {
                log.append("sync")
                seenThread.store(currentThreadID(), ordering: .relaxed)
            }
            caller.signal()
        }
        // The caller stands in the child's list (the chain is stopped by the gate).
        #expect(waitUntil { child.items.tail.load(ordering: .acquiring).map { Job.peek($0).syncWaiter != nil } ?? false })
        child.async { log.append("child after") }
        gate.signal()
        #expect(caller.wait(timeout: deadline()) == .success)
        let drained = DispatchSemaphore(value: 0)
        child.async { drained.signal() }
        #expect(drained.wait(timeout: deadline()) == .success)
        #expect(seenThread.load(ordering: .relaxed) == callerThread.load(ordering: .relaxed))
        let values = log.values
        #expect(values.firstIndex(of: "child before")! < values.firstIndex(of: "sync")!)
        #expect(values.firstIndex(of: "middle before")! < values.firstIndex(of: "sync")!)
        #expect(values.firstIndex(of: "sync")! < values.firstIndex(of: "child after")!)
    }

    /// Many threads `sync` through two children of one serial target (to a global queue)
    /// and through a concurrent middle level, while `async` traffic flows: each closure runs
    /// on its caller's thread, and alone on the serial target.
    @Test func manyThreadsThroughSharedTargets() {
        let target = DispatchQueue(label: "shared-target")
        let children = [DispatchQueue(label: "a", target: target), DispatchQueue(label: "b", target: target)]
        let wide = DispatchQueue(label: "wide", attributes: .concurrent, target: target)
        let grandchild = DispatchQueue(label: "grandchild", target: wide)
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let wrongThread = Atomic<Int>(0)
        let asyncRan = Atomic<Int>(0)
        let threads = 6, rounds = 300
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            startThread {
                let me = currentThreadID()
                for round in 0..<rounds {
                    let queue = [children[0], children[1], grandchild][(index + round) % 3]
                    if round % 5 == 0 { queue.async { asyncRan.add(1, ordering: .relaxed) } }
                    queue.sync {
                        if inside.add(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                        if currentThreadID() != me { wrongThread.add(1, ordering: .relaxed) }
                        inside.subtract(1, ordering: .relaxed)
                    }
                }
                finished.signal()
            }
        }
        for _ in 0..<threads { #expect(finished.wait(timeout: deadline(seconds: 60)) == .success) }
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(wrongThread.load(ordering: .relaxed) == 0)
        #expect(waitUntil { asyncRan.load(ordering: .relaxed) == threads * rounds / 5 })
    }
}
