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

/// A small mutual-exclusion lock: one 32-bit futex word, a bounded spin, then a futex
/// wait (Drepper's three-state mutex from "Futexes Are Tricky").
///
/// Every hand-off goes through the word's atomic operations (acquire on lock, release on
/// unlock), so ThreadSanitizer sees the ordering; `Synchronization.Mutex` under
/// contention does not (its priority-inheritance futex hand-off is invisible to TSan).
///
/// Word states: 0 unlocked, 1 locked with no waiters, 2 locked and someone may sleep.
/// Not recursive and not fair. Keep critical sections tiny and never call user code
/// while holding it.
@usableFromInline
struct FutexLock: ~Copyable, @unchecked Sendable {
    @usableFromInline let word: FutexWord

    /// Spins this many times (with a CPU pause) before sleeping on the futex.
    @usableFromInline static let spinLimit = 100

    @inlinable
    init() { word = FutexWord(0) }

    deinit { word.deallocate() }

    /// Takes the lock, sleeping if another thread holds it.
    @inlinable
    func lock() {
        if word.compareExchange(expected: 0, desired: 1).exchanged { return }
        lockContended()
    }

    /// Takes the lock only if it is free now; returns whether it did.
    @inlinable
    func tryLock() -> Bool {
        word.compareExchange(expected: 0, desired: 1).exchanged
    }

    /// Releases the lock, waking one sleeper if there may be one.
    @inlinable
    func unlock() {
        if word.exchange(0) == 2 { word.wake(1) }
    }

    /// Runs `body` with the lock held.
    @inlinable
    func withLock<Result: ~Copyable, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// The slow path: spin while the holder is likely to release soon (and nobody sleeps
    /// yet), then mark the word contended and sleep until it can be taken as state 2.
    @usableFromInline
    func lockContended() {
        var spins = 0
        while spins < Self.spinLimit {
            let state = word.load()
            if state == 0 {
                if word.compareExchange(expected: 0, desired: 1).exchanged { return }
            } else if state == 2 {
                break  // others already sleep: spinning would only delay them
            }
            cnv_cpu_relax()
            spins += 1
        }
        // Taking the lock as "contended" may cost one needless wake on unlock; it is what
        // keeps a sleeper from being forgotten.
        while word.exchange(2) != 0 {
            word.wait(expected: 2)
        }
    }
}
