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

import Glibc

/// A value behind a pthread mutex. Not `Synchronization.Mutex`: ThreadSanitizer cannot see
/// the standard library's futex-based lock (it is not instrumented) and would report every
/// access under it as a race, while it intercepts pthread mutexes.
final class Locked<Value>: @unchecked Sendable {
    /// Allocated apart: a stored property's address is not guaranteed stable across calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A value that is not `Sendable` but that the tester hands to closures used one at a
/// time: the toolchain's source types are not Sendable (Conveyor's are), and a source's
/// handlers and the blocks that touch it run one at a time.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
