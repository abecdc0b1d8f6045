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

// dispatch_group_* and dispatch_semaphore_*.
enum CGroup {
    /// The group behind a handle; traps if it is another kind of object.
    @inline(__always)
    static func group(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchGroup {
        let box = CObject.from(handle, function)
        guard box.kind == .group else { fatalError("Conveyor: \(function) called with a \(box.kind), not a group") }
        return unsafeDowncast(box.object, to: DispatchGroup.self)
    }

    /// Calls `body` with the group behind a handle without retaining it: the submission
    /// paths' form of `group(_:_:)` (a retain and release on a group that every worker
    /// leaves was a third of the producer's time in `dispatch_group_async_f` bursts).
    @inline(__always)
    static func withGroup<R>(_ handle: UnsafeMutableRawPointer?, _ function: StaticString, _ body: (DispatchGroup) -> R) -> R {
        CObject.with(handle, .group, as: DispatchGroup.self, function, body)
    }

    static func semaphore(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchSemaphore {
        let box = CObject.from(handle, function)
        guard box.kind == .semaphore else { fatalError("Conveyor: \(function) called with a \(box.kind), not a semaphore") }
        return unsafeDowncast(box.object, to: DispatchSemaphore.self)
    }
}

@_cdecl("cnv_dispatch_group_create")
package func cnv_dispatch_group_create() -> UnsafeMutableRawPointer? {
    CObject.retainedHandle(DispatchGroup(), kind: .group)
}

@_cdecl("cnv_dispatch_group_enter")
package func cnv_dispatch_group_enter(_ group: UnsafeMutableRawPointer?) {
    CGroup.withGroup(group, "dispatch_group_enter") { $0.enter() }
}

@_cdecl("cnv_dispatch_group_leave")
package func cnv_dispatch_group_leave(_ group: UnsafeMutableRawPointer?) {
    CGroup.withGroup(group, "dispatch_group_leave") { $0.leave() }
}

@_cdecl("cnv_dispatch_group_wait")
package func cnv_dispatch_group_wait(_ group: UnsafeMutableRawPointer?, _ timeout: UInt64) -> Int {
    let members = CGroup.group(group, "dispatch_group_wait")
    return CTime.wait(timeout, uptime: { members.wait(timeout: $0) }, wall: { members.wait(wallTimeout: $0) })
}

@_cdecl("cnv_dispatch_group_notify_f")
package func cnv_dispatch_group_notify_f(_ group: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?,
                                 _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    let members = CGroup.group(group, "dispatch_group_notify_f")
    let target = CObject.queue(queue, "dispatch_group_notify_f")
    let bits = UInt(bitPattern: context)   // the C caller vouches for its context
    members.notify(queue: target) { function(UnsafeMutableRawPointer(bitPattern: bits)) }
}

@_cdecl("cnv_dispatch_semaphore_create")
package func cnv_dispatch_semaphore_create(_ value: Int) -> UnsafeMutableRawPointer? {
    if value < 0 { return nil }   // as libdispatch: a negative start value gives NULL
    return CObject.retainedHandle(DispatchSemaphore(value: value), kind: .semaphore)
}

// The semaphore's calls borrow the object behind the handle (no retain and release: the
// caller's reference keeps it alive), and a wait for ever takes the plain path: the
// toolchain's DispatchSemaphore, run on the drop-in library, calls these for each
// wait()/signal() pair (54 ns a pair with a retained lookup and the timeout decoded,
// against the switched build's 9.5 ns).
@_cdecl("cnv_dispatch_semaphore_signal")
package func cnv_dispatch_semaphore_signal(_ semaphore: UnsafeMutableRawPointer?) -> Int {
    CObject.with(semaphore, .semaphore, as: DispatchSemaphore.self, "dispatch_semaphore_signal") { $0.signal() }
}

@_cdecl("cnv_dispatch_semaphore_wait")
package func cnv_dispatch_semaphore_wait(_ semaphore: UnsafeMutableRawPointer?, _ timeout: UInt64) -> Int {
    CObject.with(semaphore, .semaphore, as: DispatchSemaphore.self, "dispatch_semaphore_wait") { value in
        if timeout == TimeEncoding.forever {
            value.wait()
            return 0
        }
        return CTime.wait(timeout, uptime: { value.wait(timeout: $0) }, wall: { value.wait(wallTimeout: $0) })
    }
}
