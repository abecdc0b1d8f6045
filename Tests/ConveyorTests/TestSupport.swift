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
#if canImport(Glibc)
import Glibc
#endif

/// A generous deadline for tests that wait on other threads: long enough never to fire on
/// a loaded 2-core machine, short enough that a lost wake-up fails the test instead of
/// hanging CI.
func deadline(seconds: Int = 30) -> DispatchTime { .now() + .seconds(seconds) }

/// A thread-safe log for tests. It is guarded by Conveyor's `FutexLock`, whose hand-offs
/// ThreadSanitizer sees (`Mutex`'s kernel hand-off under contention it does not).
final class TestLog<Element: Sendable>: @unchecked Sendable {
    private let lock = FutexLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var values: [Element] { lock.withLock { storage } }
    var count: Int { lock.withLock { storage.count } }
}

final class Counter: @unchecked Sendable {
    let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var current: Int { value.load(ordering: .relaxed) }
}

/// The kernel id of the calling thread.
func currentThreadID() -> Int32 { ThreadInfo.currentID }

/// Spins (politely) until `condition` holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let end = DispatchTime.now() + seconds
    while DispatchTime.now() < end {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
