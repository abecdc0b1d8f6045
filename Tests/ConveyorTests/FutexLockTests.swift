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
import Testing
@testable import ConveyorCore

/// A counter guarded by a `FutexLock`, bumped from several threads at once.
private final class GuardedCounter: @unchecked Sendable {
    let lock = FutexLock()
    var value = 0
    let finished = FutexWord(0)
    deinit { finished.deallocate() }
}

@Suite struct FutexLockTests {
    @Test func excludesUnderContention() {
        let threads = 4, increments = 50_000
        let counter = GuardedCounter()
        for _ in 0..<threads {
            let context = Unmanaged.passRetained(counter).toOpaque()
            let started = cnv_thread_start({ argument in
                let counter = Unmanaged<GuardedCounter>.fromOpaque(argument!).takeRetainedValue()
                for _ in 0..<50_000 { counter.lock.withLock { counter.value += 1 } }
                counter.finished.fetchAdd(1)
                counter.finished.wakeAll()
                return nil
            }, context, 0)
            #expect(started == 0)
        }
        while true {
            let done = counter.finished.load()
            if done == UInt32(threads) { break }
            counter.finished.wait(expected: done)
        }
        #expect(counter.lock.withLock { counter.value } == threads * increments)
    }

    @Test func tryLockFailsWhileHeld() {
        let lock = FutexLock()
        lock.lock()
        let whileHeld = lock.tryLock()
        #expect(!whileHeld)
        lock.unlock()
        let whenFree = lock.tryLock()
        #expect(whenFree)
        lock.unlock()
    }
}
