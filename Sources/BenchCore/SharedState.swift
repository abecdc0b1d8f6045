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

import Synchronization

/// A counter that any thread may bump: the workloads use it to prove every task ran.
public final class AtomicCounter: Sendable {
    @usableFromInline let storage: Atomic<Int>

    public init(_ initial: Int = 0) { storage = Atomic(initial) }

    /// Adds `amount` and returns the new value.
    @inlinable @discardableResult
    public func add(_ amount: Int = 1) -> Int {
        storage.wrappingAdd(amount, ordering: .acquiringAndReleasing).newValue
    }

    @inlinable
    public func store(_ value: Int) { storage.store(value, ordering: .releasing) }

    @inlinable
    public var value: Int { storage.load(ordering: .acquiring) }
}

/// The plainest shared state a user's closure captures: a class with one counter, bumped
/// with `counter.n += 1` under the protection of the code under test (a serial queue).
/// Unsynchronised on purpose, like `Guarded`.
public final class Counter: @unchecked Sendable {
    /// The count; only ever touched where the dispatch library promises exclusion.
    public var n = 0
    /// A counter at zero.
    public init() {}
}

/// Mutable state whose exclusive access the code under test promises (a serial queue, a
/// barrier, a semaphore hand-off). It is deliberately unsynchronised: if the dispatch library
/// breaks its promise, the workload's checks see torn or lost updates.
public final class Guarded<Value>: @unchecked Sendable {
    public var value: Value
    public init(_ value: Value) { self.value = value }
}

/// A fixed array of slots that concurrent tasks each write at their own index, never two at
/// the same one (results of `concurrentPerform`, timer firing times).
public final class SlotBuffer<Element>: @unchecked Sendable {
    public let count: Int
    @usableFromInline let base: UnsafeMutablePointer<Element>

    public init(count: Int, initialValue: Element) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: initialValue, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inlinable
    public subscript(index: Int) -> Element {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// A copy of the contents, read after every writer has finished.
    public func snapshot() -> [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
