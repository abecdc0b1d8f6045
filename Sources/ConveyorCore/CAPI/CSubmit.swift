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

// Submitting C functions to queues: dispatch_async_f and its kin. The block forms are in
// the C target (`CConveyorDispatch`): they copy the block once and call these with a
// trampoline that runs it and then releases it.

/// A C `dispatch_apply` function: context and iteration index.
package typealias CApplyFunction = @convention(c) (UnsafeMutableRawPointer?, Int) -> Void

@_cdecl("cnv_dispatch_async_f")
package func cnv_dispatch_async_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_async_f") { target in
        target.enqueue(FunctionJob.make(band: target.band, isBarrier: false, group: nil, function: function, context: context))
    }
}

@_cdecl("cnv_dispatch_barrier_async_f")
package func cnv_dispatch_barrier_async_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_barrier_async_f") { target in
        target.enqueue(FunctionJob.make(band: target.band, isBarrier: true, group: nil, function: function, context: context))
    }
}

@_cdecl("cnv_dispatch_group_async_f")
package func cnv_dispatch_group_async_f(_ group: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?,
                                _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CGroup.withGroup(group, "dispatch_group_async_f") { members in
        members.enter()
        CObject.withQueue(queue, "dispatch_group_async_f") { target in
            target.enqueue(FunctionJob.make(band: target.band, isBarrier: false, group: members, function: function, context: context))
        }
    }
}

@_cdecl("cnv_dispatch_sync_f")
package func cnv_dispatch_sync_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_sync_f") { target in target.sync { function(context) } }
}

@_cdecl("cnv_dispatch_barrier_sync_f")
package func cnv_dispatch_barrier_sync_f(_ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    CObject.withQueue(queue, "dispatch_barrier_sync_f") { target in target.sync(flags: .barrier) { function(context) } }
}

@_cdecl("cnv_dispatch_after_f")
package func cnv_dispatch_after_f(_ when: UInt64, _ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    let target = CObject.queue(queue, "dispatch_after_f")
    let bits = UInt(bitPattern: context)
    let work: @Sendable () -> Void = { function(UnsafeMutableRawPointer(bitPattern: bits)) }
    switch CTime.decode(when) {
    case .forever: return   // never runs, as in libdispatch
    case .uptime(let deadline): target.asyncAfter(deadline: deadline, execute: work)
    case .wall(let deadline): target.asyncAfter(wallDeadline: deadline, execute: work)
    }
}

@_cdecl("cnv_dispatch_apply_f")
package func cnv_dispatch_apply_f(_ iterations: Int, _ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CApplyFunction) {
    // DISPATCH_APPLY_AUTO (NULL) and global queues: all CPUs, the caller taking part. A
    // serial queue runs the iterations one after another on that queue, and a concurrent
    // queue the program made runs them in parallel on it (its specifics, barriers and
    // width hold), as libdispatch does.
    let bits = UInt(bitPattern: context)
    if let queue {
        let target = CObject.queue(queue, "dispatch_apply_f")
        switch target.kind {
        case .serial, .main:
            target.sync { for index in 0..<iterations { function(context, index) } }
            return
        case .concurrent:
            DispatchQueue.concurrentPerform(iterations: iterations, on: target) { index in
                function(UnsafeMutableRawPointer(bitPattern: bits), index)
            }
            return
        case .root:
            DispatchQueue.concurrentPerform(iterations: iterations, onGlobal: target) { index in
                function(UnsafeMutableRawPointer(bitPattern: bits), index)
            }
            return
        }
    }
    DispatchQueue.concurrentPerform(iterations: iterations) { index in
        function(UnsafeMutableRawPointer(bitPattern: bits), index)
    }
}

@_cdecl("cnv_dispatch_main")
package func cnv_dispatch_main() -> Never {
    dispatchMain()
}
