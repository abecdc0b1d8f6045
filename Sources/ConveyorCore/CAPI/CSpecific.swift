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

// dispatch_queue_set_specific / dispatch_queue_get_specific / dispatch_get_specific.
// C keys are addresses, values are pointers with an optional destructor that runs when the
// value is replaced or its queue is freed. The values sit in the queue's Swift specifics
// under one key object, so they go when the queue goes.

/// A queue's C specifics: key address → (value, destructor).
final class CSpecificTable: @unchecked Sendable {
    struct Entry {
        var value: UnsafeMutableRawPointer
        var destructor: CFunction?
    }
    static let key = DispatchSpecificKey<CSpecificTable>()
    let lock = FutexLock()
    var entries: [UInt: Entry] = [:]   // guarded by lock

    deinit {
        for entry in entries.values { entry.destructor?(entry.value) }
    }
}

/// Guards making a queue's table (Conveyor's lock, not `Synchronization.Mutex`, whose
/// hand-off under contention ThreadSanitizer does not see: `CQueueAttributes.tablesLock`).
private let specificsLock = FutexLock()

@_cdecl("cnv_dispatch_queue_set_specific")
package func cnv_dispatch_queue_set_specific(_ queue: UnsafeMutableRawPointer?, _ key: UnsafeRawPointer?,
                                     _ value: UnsafeMutableRawPointer?, _ destructor: CFunction?) {
    guard let key else { return }
    let target = CObject.queue(queue, "dispatch_queue_set_specific")
    let table: CSpecificTable = specificsLock.withLock {
        if let table = target.getSpecific(key: CSpecificTable.key) { return table }
        let table = CSpecificTable()
        target.setSpecific(key: CSpecificTable.key, value: table)
        return table
    }
    table.lock.lock()
    let previous = table.entries[UInt(bitPattern: key)]
    table.entries[UInt(bitPattern: key)] = value.map { CSpecificTable.Entry(value: $0, destructor: destructor) }
    table.lock.unlock()
    if let previous { previous.destructor?(previous.value) }
}

@_cdecl("cnv_dispatch_queue_get_specific")
package func cnv_dispatch_queue_get_specific(_ queue: UnsafeMutableRawPointer?, _ key: UnsafeRawPointer?) -> UnsafeMutableRawPointer? {
    guard let key else { return nil }
    return specific(of: CObject.queue(queue, "dispatch_queue_get_specific"), key: key)
}

@_cdecl("cnv_dispatch_get_specific")
package func cnv_dispatch_get_specific(_ key: UnsafeRawPointer?) -> UnsafeMutableRawPointer? {
    guard let key else { return nil }
    var queue = currentQueue()
    while let current = queue {
        if let value = specific(of: current, key: key) { return value }
        queue = current.targetQueue
    }
    return nil
}

private func specific(of queue: DispatchQueue, key: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
    guard let table = queue.getSpecific(key: CSpecificTable.key) else { return nil }
    table.lock.lock()
    defer { table.lock.unlock() }
    return table.entries[UInt(bitPattern: key)]?.value
}
