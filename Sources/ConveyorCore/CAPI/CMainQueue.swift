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

// The main queue's C handle: the address of the C target's static
// `cnv__dispatch_main_q`, which the C target registers when the library loads (an ELF
// constructor), so that `dispatch_get_current_queue()` can answer it.
private let mainQueueHandleWord = Atomic<UInt>(0)

@_cdecl("cnv_capi_register_main_queue")
package func cnv_capi_register_main_queue(_ handle: UnsafeMutableRawPointer?) {
    // The first registration wins: the drop-in library registers its own object (under
    // libdispatch's name) over this one, whichever constructor runs first.
    _ = mainQueueHandleWord.compareExchange(expected: 0, desired: UInt(bitPattern: handle), ordering: .acquiringAndReleasing)
}

/// The drop-in library's main queue object, `_dispatch_main_q` as the program sees it (its
/// own copy, when the executable copied the object at load time): the handle that
/// `dispatch_get_current_queue()` answers from then on.
@_cdecl("cnv_capi_register_drop_in_main_queue")
package func cnv_capi_register_drop_in_main_queue(_ handle: UnsafeMutableRawPointer?) {
    mainQueueHandleWord.store(UInt(bitPattern: handle), ordering: .releasing)
}

func cnv_main_queue_handle() -> UnsafeMutableRawPointer? {
    UnsafeMutableRawPointer(bitPattern: mainQueueHandleWord.load(ordering: .acquiring))
}

@_cdecl("cnv_dispatch_assert_queue")
package func cnv_dispatch_assert_queue(_ queue: UnsafeMutableRawPointer?) {
    dispatchPrecondition(condition: .onQueue(CObject.queue(queue, "dispatch_assert_queue")))
}

@_cdecl("cnv_dispatch_assert_queue_barrier")
package func cnv_dispatch_assert_queue_barrier(_ queue: UnsafeMutableRawPointer?) {
    dispatchPrecondition(condition: .onQueueAsBarrier(CObject.queue(queue, "dispatch_assert_queue_barrier")))
}

@_cdecl("cnv_dispatch_assert_queue_not")
package func cnv_dispatch_assert_queue_not(_ queue: UnsafeMutableRawPointer?) {
    dispatchPrecondition(condition: .notOnQueue(CObject.queue(queue, "dispatch_assert_queue_not")))
}
