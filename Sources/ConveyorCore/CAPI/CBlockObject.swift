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

// The objects behind dispatch_block_create: a `DispatchWorkItem` per created block. The C
// target (`block_objects.c`) makes a heap block whose invoke performs the item and whose
// copy and dispose helpers retain and release it; these are the calls it makes, with the
// item as an `Unmanaged` pointer.

import CConveyor

enum CBlockObject {
    static func item(_ pointer: UnsafeMutableRawPointer) -> DispatchWorkItem {
        Unmanaged<DispatchWorkItem>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// A new work item (returned retained) that runs `invoke(block)`; `release(block)` frees
/// the block's copy when the item goes (at once when the arguments are refused and NULL
/// is returned). `qosClass` is a C `qos_class_t` (0: none).
@_cdecl("cnv_capi_block_item_create")
package func cnv_capi_block_item_create(_ flags: UInt, _ qosClass: UInt32, _ relativePriority: Int32,
                                        _ invoke: CFunction, _ block: UnsafeMutableRawPointer?,
                                        _ release: CFunction) -> UnsafeMutableRawPointer? {
    // libdispatch: NULL for an invalid class or priority, or flags outside
    // `DISPATCH_BLOCK_API_MASK` (0xFF; the header's "not a combination of the defined flags").
    guard let qos = DispatchQoS.QoSClass(cValue: qosClass), relativePriority <= 0, relativePriority >= -15,
          flags & ~0xFF == 0 else {
        release(block)
        return nil
    }
    cnv_capi_note_state_made()   // the drop-in library forwards to a program's runtime only before this
    let holder = CBlockHandler(invoke: invoke, block: block, release: release)
    let item = DispatchWorkItem(qos: DispatchQoS(qosClass: qos, relativePriority: Int(relativePriority)),
                                flags: DispatchWorkItemFlags(rawValue: flags & 0x3F)) {
        holder.invoke(holder.block)
    }
    return Unmanaged.passRetained(item).toOpaque()
}

@_cdecl("cnv_capi_block_item_retain")
package func cnv_capi_block_item_retain(_ item: UnsafeMutableRawPointer) {
    _ = Unmanaged<DispatchWorkItem>.fromOpaque(item).retain()
}

@_cdecl("cnv_capi_block_item_release")
package func cnv_capi_block_item_release(_ item: UnsafeMutableRawPointer) {
    Unmanaged<DispatchWorkItem>.fromOpaque(item).release()
}

@_cdecl("cnv_capi_block_item_perform")
package func cnv_capi_block_item_perform(_ item: UnsafeMutableRawPointer) {
    CBlockObject.item(item).perform()
}

/// Submits the item to `queue` with its own flags (a barrier item runs alone), in
/// `group` when there is one.
@_cdecl("cnv_capi_block_item_async")
package func cnv_capi_block_item_async(_ queue: UnsafeMutableRawPointer?, _ item: UnsafeMutableRawPointer,
                                       _ group: UnsafeMutableRawPointer?) {
    let target = CObject.queue(queue, "dispatch_async")
    if let group {
        target.async(group: CGroup.group(group, "dispatch_group_async"), execute: CBlockObject.item(item))
    } else {
        target.async(execute: CBlockObject.item(item))
    }
}

/// `dispatch_group_notify` with a block object: the item is the notification, so its
/// flags apply (a barrier item runs alone), as libdispatch's continuation does.
@_cdecl("cnv_capi_block_item_group_notify")
package func cnv_capi_block_item_group_notify(_ group: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?,
                                              _ item: UnsafeMutableRawPointer) {
    let target = CObject.queue(queue, "dispatch_group_notify")
    CGroup.group(group, "dispatch_group_notify").notify(queue: target, work: CBlockObject.item(item))
}

/// `dispatch_after` with a block object: the item is submitted at `when`, with its flags.
@_cdecl("cnv_capi_block_item_after")
package func cnv_capi_block_item_after(_ when: UInt64, _ queue: UnsafeMutableRawPointer?, _ item: UnsafeMutableRawPointer) {
    let target = CObject.queue(queue, "dispatch_after")
    switch CTime.decode(when) {
    case .forever: return   // never runs, as in libdispatch
    case .uptime(let deadline): target.asyncAfter(deadline: deadline, execute: CBlockObject.item(item))
    case .wall(let deadline): target.asyncAfter(wallDeadline: deadline, execute: CBlockObject.item(item))
    }
}

/// `dispatch_block_notify` whose notification is itself a block object: submitted with
/// its own flags once `item` is done.
@_cdecl("cnv_capi_block_item_notify_item")
package func cnv_capi_block_item_notify_item(_ item: UnsafeMutableRawPointer, _ queue: UnsafeMutableRawPointer?,
                                             _ notification: UnsafeMutableRawPointer) {
    let target = CObject.queue(queue, "dispatch_block_notify")
    CBlockObject.item(item).notify(queue: target, execute: CBlockObject.item(notification))
}

@_cdecl("cnv_capi_block_item_sync")
package func cnv_capi_block_item_sync(_ queue: UnsafeMutableRawPointer?, _ item: UnsafeMutableRawPointer) {
    CObject.queue(queue, "dispatch_sync").sync(execute: CBlockObject.item(item))
}

@_cdecl("cnv_capi_block_item_wait")
package func cnv_capi_block_item_wait(_ item: UnsafeMutableRawPointer, _ timeout: UInt64) -> Int {
    let work = CBlockObject.item(item)
    return CTime.wait(timeout, uptime: { work.wait(timeout: $0) }, wall: { work.wait(wallTimeout: $0) })
}

@_cdecl("cnv_capi_block_item_notify")
package func cnv_capi_block_item_notify(_ item: UnsafeMutableRawPointer, _ queue: UnsafeMutableRawPointer?,
                                        _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    let target = CObject.queue(queue, "dispatch_block_notify")
    let bits = UInt(bitPattern: context)
    CBlockObject.item(item).notify(queue: target) { function(UnsafeMutableRawPointer(bitPattern: bits)) }
}

@_cdecl("cnv_capi_block_item_cancel")
package func cnv_capi_block_item_cancel(_ item: UnsafeMutableRawPointer) {
    CBlockObject.item(item).cancel()
}

@_cdecl("cnv_capi_block_item_testcancel")
package func cnv_capi_block_item_testcancel(_ item: UnsafeMutableRawPointer) -> Int {
    CBlockObject.item(item).isCancelled ? 1 : 0
}

/// A block that dispatch_block_create did not make, passed where only those are valid
/// (libdispatch crashes there too).
@_cdecl("cnv_capi_block_misuse")
package func cnv_capi_block_misuse(_ function: UnsafePointer<CChar>) -> Never {
    fatalError("Conveyor: \(String(cString: function)) called with a block not made by dispatch_block_create")
}
