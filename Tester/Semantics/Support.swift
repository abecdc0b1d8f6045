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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What ran, in order, from any thread: a source's handlers, blocks whose order is asked.
final class EventLog: @unchecked Sendable {
    private var entries: [String] = []
    private var lock = pthread_mutex_t()
    let changed = DispatchSemaphore(value: 0)
    init() { pthread_mutex_init(&lock, nil) }
    func append(_ entry: String) {
        pthread_mutex_lock(&lock); entries.append(entry); pthread_mutex_unlock(&lock)
        changed.signal()
    }
    var values: [String] { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return entries }
    /// Waits for `count` entries (`seconds` at most for each, none after one that did not
    /// come) and returns them.
    func await(_ count: Int, seconds: Double = 5) -> [String] {
        for _ in 0..<count where changed.wait(timeout: .now() + seconds) == .timedOut { break }
        return values
    }
}

/// A count that blocks on several threads add to.
final class Counter: @unchecked Sendable {
    private var total = 0
    private var lock = pthread_mutex_t()
    init() { pthread_mutex_init(&lock, nil) }
    func add(_ amount: Int = 1) { pthread_mutex_lock(&lock); total += amount; pthread_mutex_unlock(&lock) }
    var value: Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return total }
}
