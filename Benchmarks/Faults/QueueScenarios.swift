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

// Issue 11, findings 1, 8 and 9: where `sync` through a target chain runs, whether the
// main thread is bound to the main queue, and when a group's closure is released.
#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum QueueScenarios {
    /// Finding 1: `sync` on a serial queue whose target is another serial queue, while
    /// another thread keeps the target busy. Reports the share of closures that ran on the
    /// caller's thread, and how many found the caller's recursive mutex taken by another
    /// thread (a real `lock()` there deadlocks; the scenario uses `trylock`).
    static func syncThroughChain(calls: Int) {
        let target = DispatchQueue(label: "chain-target")
        let queue = DispatchQueue(label: "chain-queue", target: target)
        let stop = Atomic<Bool>(false)
        let feederDone = DispatchSemaphore(value: 0)
        startThread {
            while !stop.load(ordering: .acquiring) {
                target.async { compute(milliseconds: 0.01) }
                queue.async { compute(milliseconds: 0.01) }
                usleep(20)
            }
            feederDone.signal()
        }
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, &attributes)
        let caller = pthread_self()
        var onCaller = 0
        var lockedElsewhere = 0
        for _ in 0..<calls {
            pthread_mutex_lock(mutex)
            let (ranOnCaller, gotLock) = queue.sync { () -> (Bool, Bool) in
                let got = pthread_mutex_trylock(mutex) == 0
                if got { pthread_mutex_unlock(mutex) }
                return (pthread_equal(pthread_self(), caller) != 0, got)
            }
            pthread_mutex_unlock(mutex)
            if ranOnCaller { onCaller += 1 }
            if !gotLock { lockedElsewhere += 1 }
        }
        stop.store(true, ordering: .releasing)
        feederDone.wait()
        report("sync-chain on the caller's thread", 100 * Double(onCaller) / Double(calls), "%")
        report("sync-chain recursive lock held elsewhere", Double(lockedElsewhere), "of \(calls)")
    }

    /// Finding 8: on the main thread, before any main-queue block, a key set on the main
    /// queue is visible and `dispatchPrecondition(.onQueue(.main))` holds (a trap ends the
    /// program before the second line; faults.py reports the missing line as a trap).
    static func mainThreadBinding() {
        let key = DispatchSpecificKey<Int>()
        DispatchQueue.main.setSpecific(key: key, value: 7)
        let seen = DispatchQueue.getSpecific(key: key)
        report("main-thread getSpecific", seen == 7 ? "7" : "nil")
        dispatchPrecondition(condition: .onQueue(.main))
        report("main-thread onQueue(.main)", "holds")
    }

    /// Finding 9: an object captured by a closure submitted with `async(group:)`; counts
    /// the rounds in which it was still alive right after `wait()` returned.
    static func groupCapture(rounds: Int) {
        final class Captured: Sendable {}
        let queue = DispatchQueue(label: "capture")
        var alive = 0
        for _ in 0..<rounds {
            let group = DispatchGroup()
            weak var weakObject: Captured?
            do {
                let object = Captured()
                weakObject = object
                queue.async(group: group) { withExtendedLifetime(object) {} }
            }
            group.wait()
            if weakObject != nil { alive += 1 }
        }
        report("group-capture alive after wait", Double(alive), "of \(rounds)")
    }
}
