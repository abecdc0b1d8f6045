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
#if canImport(Glibc)
import Glibc
#endif

// Entry points of libdispatch's private headers that the toolchain's own libraries call
// (Foundation's run loop, Swift concurrency's runtime) or that programs built against
// libdispatch may call. They are `cnv_` exports like the rest of the C API; the drop-in
// library (Sources/CConveyorDropIn) gives them libdispatch's names.

// MARK: the main queue for CoreFoundation's run loop

/// `_dispatch_get_main_queue_port_4CF` (and its newer name `..._handle_4CF`): the eventfd
/// that becomes readable when the main queue has work. CoreFoundation's run loop polls it
/// and then calls `_dispatch_main_queue_callback_4CF` on the main thread.
@_cdecl("cnv__dispatch_get_main_queue_port_4CF")
package func cnv__dispatch_get_main_queue_port_4CF() -> Int32 {
    MainQueueRunner.shared.hostDescriptor()
}

/// `_dispatch_main_queue_callback_4CF`: runs the main queue's pending work, as
/// `DispatchQueue.drainMainQueue()` does. The argument (a Mach message on Darwin) is unused.
@_cdecl("cnv__dispatch_main_queue_callback_4CF")
package func cnv__dispatch_main_queue_callback_4CF(_ message: UnsafeMutableRawPointer?) {
    DispatchQueue.drainMainQueue()
}

// MARK: queue width

/// `dispatch_queue_set_width`, which Swift concurrency's runtime calls on each of its
/// global queues with `DISPATCH_QUEUE_WIDTH_MAX_LOGICAL_CPUS` (-3).
///
/// libdispatch reads the width as a 32-bit `int` (a `LONG_MAX` width is -1), takes 0 as 1,
/// any negative one as a count of CPUs (-1 active, -2 physical, -3 and others logical),
/// and caps the rest at its widest (4094); it applies the width in order with the queue's
/// work (here it applies at once: items already running stay running). A fixed width on a
/// concurrent queue limits how many of its items (and `sync` callers) run at once, as in
/// libdispatch.
///
/// A width relative to the CPUs asks that no more of the queue's work run at once than
/// there are CPUs. Conveyor's pool keeps that for all work together: it runs one worker per
/// CPU and adds a thread only while one is blocked, so work blocked (on a semaphore, say)
/// does not count against the CPUs and cannot starve the rest. libdispatch on Linux counts
/// the blocked work too: of 64 tasks that block on a semaphore, it starts as many as there
/// are CPUs and the others wait for ever. Such a width, or the widest one, therefore sets
/// no limit here (`DispatchQueue.widthLimit(requested:)` says what a bound did).
///
/// On a serial queue libdispatch crashes for any width ("Cannot set width of a serial
/// queue"); here a width of 1 (or 0) is accepted as the width it has, and any other traps.
@_cdecl("cnv_dispatch_queue_set_width")
package func cnv_dispatch_queue_set_width(_ handle: UnsafeMutableRawPointer?, _ width: Int) {
    let queue = CObject.queue(handle, "dispatch_queue_set_width")
    let asInt = Int32(truncatingIfNeeded: width)   // libdispatch's "intentional truncation"
    switch queue.kind {
    case .root, .main:
        fatalError("Conveyor: dispatch_queue_set_width called with a global or the main queue (libdispatch crashes there too)")
    case .concurrent:
        queue.setWidthLimit(DispatchQueue.widthLimit(requested: asInt))
    case .serial where asInt == 0 || asInt == 1:
        return
    case .serial:
        fatalError("Conveyor: dispatch_queue_set_width(\(width)) on a serial queue; a serial queue's width is 1 (libdispatch crashes for any width there)")
    }
}

// MARK: process state

/// `_dispatch_is_multithreaded`: whether Conveyor's pool has been started in this process.
@_cdecl("cnv__dispatch_is_multithreaded")
package func cnv__dispatch_is_multithreaded() -> Bool {
    cnv_fork_guard_armed() != 0
}

/// `_dispatch_is_fork_of_multithreaded_parent`: whether this process is the child of a
/// `fork()` made after the pool had started (where only exec is safe).
@_cdecl("cnv__dispatch_is_fork_of_multithreaded_parent")
package func cnv__dispatch_is_fork_of_multithreaded_parent() -> Bool {
    cnv_is_forked_child() != 0
}

// MARK: submission

/// `dispatch_async_and_wait_f`: as `dispatch_sync_f` (the work runs before the call
/// returns, in order with the queue's other work; on the main queue, on the main thread).
@_cdecl("cnv_dispatch_async_and_wait_f")
package func cnv_dispatch_async_and_wait_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_async_and_wait_f") { target in target.sync { function(context) } }
}

/// `dispatch_barrier_async_and_wait_f`: as `dispatch_barrier_sync_f`.
@_cdecl("cnv_dispatch_barrier_async_and_wait_f")
package func cnv_dispatch_barrier_async_and_wait_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_barrier_async_and_wait_f") { target in target.sync(flags: .barrier) { function(context) } }
}

/// `dispatch_benchmark_f`: runs `function(context)` `count` times and answers the mean
/// wall time of one call in nanoseconds (0 when `count` is 0).
@_cdecl("cnv_dispatch_benchmark_f")
package func cnv_dispatch_benchmark_f(_ count: Int, _ context: UnsafeMutableRawPointer?, _ function: CFunction) -> UInt64 {
    guard count > 0 else { return 0 }
    let start = Clock.monotonicNanoseconds()
    for _ in 0..<count { function(context) }
    return (Clock.monotonicNanoseconds() - start) / UInt64(count)
}

/// `dispatch_queue_attr_make_with_overcommit`: a queue made with these attributes and no
/// target targets the overcommitting global queue of its QoS (its work always gets a
/// thread, see `DispatchQueue.overcommitRoot(for:)`).
@_cdecl("cnv_dispatch_queue_attr_make_with_overcommit")
package func cnv_dispatch_queue_attr_make_with_overcommit(_ attr: UnsafeMutableRawPointer?, _ overcommit: Bool) -> UnsafeMutableRawPointer? {
    var attributes = CQueueAttributes.from(attr)
    attributes.overcommit = overcommit
    return attributes.handle
}
