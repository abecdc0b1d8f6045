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

/// A key for a value attached to a queue with `setSpecific(key:value:)`. The key is
/// identified by the object itself; keep it alive as long as values use it.
public final class DispatchSpecificKey<T>: @unchecked Sendable {
    /// Creates a key.
    public init() {}
}

/// The values attached to queues, guarded by one lock (these calls are rare next to
/// submitting work, and a lock per queue would cost every queue memory).
final class QueueSpecifics: @unchecked Sendable {
    static let shared = QueueSpecifics()
    private let lock = FutexLock()
    private var values: [ObjectIdentifier: [ObjectIdentifier: Any]] = [:]

    func set(queue: DispatchQueue, key: AnyObject, value: Any?) {
        lock.withLock {
            values[ObjectIdentifier(queue), default: [:]][ObjectIdentifier(key)] = value
            if values[ObjectIdentifier(queue)]?.isEmpty == true { values[ObjectIdentifier(queue)] = nil }
        }
    }

    func get(queue: DispatchQueue, key: AnyObject) -> Any? {
        lock.withLock { values[ObjectIdentifier(queue)]?[ObjectIdentifier(key)] }
    }

    /// Drops a freed queue's values (their deinits run outside the lock).
    func removeAll(queue: ObjectIdentifier) {
        let dropped = lock.withLock { values.removeValue(forKey: queue) }
        _ = dropped
    }
}

extension DispatchQueue {
    /// Attaches `value` to this queue under `key` (nil removes it). The value is released
    /// when replaced or when the queue is freed, which makes it a place for clean-up
    /// (the chapter's queue context and finalizer).
    public func setSpecific<T>(key: DispatchSpecificKey<T>, value: T?) {
        QueueSpecifics.shared.set(queue: self, key: key, value: value.map { $0 as Any })
        if value != nil { hasSpecifics.store(true, ordering: .releasing) }
    }

    /// The value attached to this queue under `key`, if any.
    public func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? {
        QueueSpecifics.shared.get(queue: self, key: key) as? T
    }

    /// The value for `key` on the queue the calling code runs on, looking through that
    /// queue's targets in turn.
    public class func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? {
        // Outside any queue's work, the main thread's current queue is the main queue (as
        // with libdispatch, whose main queue is bound to the main thread).
        var queue = DrainFrame.innermostQueue ?? (ThreadInfo.isMainThread ? DispatchQueue.main : nil)
        while let current = queue {
            if let value = current.getSpecific(key: key) { return value }
            queue = current.targetQueue
        }
        return nil
    }
}
