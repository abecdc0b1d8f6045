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

/// A one-shot wake-up for one thread: `unpark()` before `park()` makes `park()` return at
/// once without a system call; otherwise `park()` sleeps on a futex until `unpark()`.
@usableFromInline
final class Parker: @unchecked Sendable {
    private static let empty: UInt32 = 0
    private static let notified: UInt32 = 1
    private static let parked: UInt32 = 2

    @usableFromInline let word = FutexWord(0)

    @usableFromInline init() {}
    deinit { word.deallocate() }

    /// Sleeps until unparked, or until `timeoutNanoseconds` passes. Returns true when
    /// unparked (consuming the wake-up), false on timeout. Only the owning thread parks.
    @usableFromInline @discardableResult
    func park(timeoutNanoseconds: Int64? = nil) -> Bool {
        if word.compareExchange(expected: Self.notified, desired: Self.empty).exchanged { return true }
        let (stored, seen) = word.compareExchange(expected: Self.empty, desired: Self.parked)
        if !stored {
            ensure(seen == Self.notified, "Conveyor: a Parker has two parked threads")
            word.store(Self.empty)
            return true
        }
        let deadline = timeoutNanoseconds.map { Int64(Clock.monotonicNanoseconds()) &+ $0 }
        while true {
            var remaining: Int64? = nil
            if let deadline {
                remaining = deadline &- Int64(Clock.monotonicNanoseconds())
                if remaining! <= 0 {
                    if word.compareExchange(expected: Self.parked, desired: Self.empty).exchanged { return false }
                    word.store(Self.empty)   // an unpark raced the timeout: take it
                    return true
                }
            }
            word.wait(expected: Self.parked, timeoutNanoseconds: remaining)
            if word.compareExchange(expected: Self.notified, desired: Self.empty).exchanged { return true }
        }
    }

    /// Wakes the owner if it sleeps, or makes its next `park()` return at once.
    @usableFromInline
    func unpark() {
        if word.exchange(Self.notified) == Self.parked { word.wake(1) }
    }
}
