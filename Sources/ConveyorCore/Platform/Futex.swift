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

/// A 32-bit word at a stable address that threads can wait on and wake through the
/// Linux futex syscall. The owner allocates it and must call `deallocate()` once.
@usableFromInline
struct FutexWord: @unchecked Sendable {
    @usableFromInline let pointer: UnsafeMutablePointer<UInt32>

    @inlinable
    init(_ initial: UInt32 = 0) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: initial)
    }

    @inlinable
    func deallocate() { pointer.deallocate() }

    @inlinable
    func load() -> UInt32 { cnv_atomic_load_u32(pointer) }

    @inlinable
    func store(_ value: UInt32) { cnv_atomic_store_u32(pointer, value) }

    @inlinable
    func exchange(_ value: UInt32) -> UInt32 { cnv_atomic_exchange_u32(pointer, value) }

    @inlinable @discardableResult
    func fetchAdd(_ value: UInt32) -> UInt32 { cnv_atomic_fetch_add_u32(pointer, value) }

    /// Compare-and-swap; returns whether it stored `desired` and the value seen.
    @inlinable
    func compareExchange(expected: UInt32, desired: UInt32) -> (exchanged: Bool, original: UInt32) {
        var seen = expected
        let ok = cnv_atomic_cas_u32(pointer, &seen, desired) != 0
        return (ok, seen)
    }

    /// Sleeps while the word equals `expected`, at most `timeoutNanoseconds` if given.
    /// Returns false only when the timeout elapsed; spurious returns are possible.
    @inlinable @discardableResult
    func wait(expected: UInt32, timeoutNanoseconds: Int64? = nil) -> Bool {
        let rc = cnv_futex_wait(pointer, expected, timeoutNanoseconds ?? -1)
        return !(rc == -1 && cnv_errno() == 110 /* ETIMEDOUT */)
    }

    /// Wakes at most `count` threads sleeping on this word.
    @inlinable
    func wake(_ count: Int32 = 1) { _ = cnv_futex_wake(pointer, count) }

    @inlinable
    func wakeAll() { _ = cnv_futex_wake(pointer, Int32.max) }
}
