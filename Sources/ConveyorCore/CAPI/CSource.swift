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

// dispatch_source_*: sources made from the C source types, handlers as C functions (which
// receive the source's context) or as copied blocks (which the C target hands over with
// the function that releases them).

/// The source types (`DISPATCH_SOURCE_TYPE_*`): the C targets' static
/// `_dispatch_source_type_*` records carry these numbers after their tag word. The raw
/// values are the `CNV_SOURCE_TYPE_*` numbers of CConveyor's `cnv_static_objects.h`
/// (literals here, as an enum needs; `CStaticObjectTests` checks them).
enum CSourceType: UInt {
    case dataAdd = 1, dataOr, dataReplace, machSend, machReceive, memoryPressure, process, read, signal, timer, vnode, write

    static func from(_ handle: UnsafeMutableRawPointer?) -> CSourceType? {
        guard let handle, handle.load(as: UInt.self) == CStaticTag.sourceType else { return nil }
        return CSourceType(rawValue: handle.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self))
    }

    /// `DISPATCH_TIMER_STRICT`, and libdispatch's private `DISPATCH_TIMER_BACKGROUND` (a
    /// hint to coalesce more, accepted and not acted on).
    static let strictTimer: UInt = 0x1
    static let backgroundTimer: UInt = 0x2

    /// Whether `dispatch_source_create` takes this handle and mask, by libdispatch's rules
    /// (its `dst_create` functions: NULL otherwise): a descriptor at most `INT_MAX`; a
    /// signal number below `NSIG`; no handle for data and timer sources (libdispatch's
    /// private clock identifiers as a timer's handle are not provided); no mask bits the
    /// type does not define, and at least one where it defines any (timers excepted, whose
    /// flags are optional). Without this a bad
    /// descriptor was truncated to 32 bits and watched (`1 << 32 | fd` became `fd`).
    func accepts(handle: UInt, mask: UInt) -> Bool {
        func maskWithin(_ allowed: UInt) -> Bool { mask & ~allowed == 0 && (allowed == 0 || mask != 0) }
        switch self {
        case .dataAdd, .dataOr, .dataReplace: return handle == 0 && mask == 0
        case .machSend, .machReceive: return false
        case .read, .write: return handle <= UInt(Int32.max) && mask == 0
        case .signal: return handle > 0 && handle < 65 && mask == 0   // NSIG on Linux
        case .timer: return handle == 0 && mask & ~(Self.strictTimer | Self.backgroundTimer) == 0
        case .process: return handle > 0 && handle <= UInt(Int32.max) && maskWithin(DispatchSource.ProcessEvent.all.rawValue)
        case .vnode:
            let defined = DispatchSource.FileSystemEvent.all.rawValue | DispatchSource.FileSystemEvent.funlock.rawValue
            return handle <= UInt(Int32.max) && maskWithin(defined)
        case .memoryPressure: return handle == 0 && maskWithin(DispatchSource.MemoryPressureEvent.all.rawValue)
        }
    }
}

/// A block handler's copy: released (with `Block_release`, through the C target's
/// function) when the source lets go of the handler.
final class CBlockHandler: @unchecked Sendable {
    let invoke: CFunction
    let block: UnsafeMutableRawPointer?
    let release: CFunction

    init(invoke: CFunction, block: UnsafeMutableRawPointer?, release: CFunction) {
        self.invoke = invoke
        self.block = block
        self.release = release
    }

    deinit { release(block) }
}

enum CSource {
    static func source(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchSource {
        let box = CObject.from(handle, function)
        guard box.kind == .source else { fatalError("Conveyor: \(function) called with a \(box.kind), not a source") }
        return unsafeDowncast(box.object, to: DispatchSource.self)
    }

    static func kind(_ which: Int32) -> SourceHandlerKind {
        switch which {
        case 0: .event
        case 1: .cancel
        default: .registration
        }
    }

    static func setFunction(_ handle: UnsafeMutableRawPointer?, _ which: Int32, _ function: CFunction?, _ name: StaticString) {
        let box = CObject.from(handle, name)
        guard box.kind == .source else { fatalError("Conveyor: \(name) called with a \(box.kind), not a source") }
        let source = unsafeDowncast(box.object, to: DispatchSource.self)
        let context = box.context
        source.setHandler(kind(which), function.map { function in
            SourceHandler(.closure({ function(context.context) }), band: nil)
        })
    }
}

@_cdecl("cnv_dispatch_source_create")
package func cnv_dispatch_source_create(_ type: UnsafeMutableRawPointer?, _ handle: UInt, _ mask: UInt, _ queue: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let kind = CSourceType.from(type), kind.accepts(handle: handle, mask: mask) else { return nil }
    // No queue: the default overcommitting global queue, as libdispatch's sources use.
    let target = queue.map { CObject.queue($0, "dispatch_source_create") } ?? DispatchQueue.overcommitRoot(for: .default)
    let fd = Int32(truncatingIfNeeded: Int(bitPattern: handle))
    let made: any DispatchSourceProtocol
    switch kind {
    case .dataAdd: made = DispatchSource.makeUserDataAddSource(queue: target)
    case .dataOr: made = DispatchSource.makeUserDataOrSource(queue: target)
    case .dataReplace: made = DispatchSource.makeUserDataReplaceSource(queue: target)
    case .machSend, .machReceive: return nil   // no Mach ports on Linux (libdispatch: NULL too)
    case .memoryPressure:
        made = DispatchSource.makeMemoryPressureSource(eventMask: .init(rawValue: mask), queue: target)
    case .process:
        made = DispatchSource.makeProcessSource(identifier: fd, eventMask: .init(rawValue: mask), queue: target)
    case .read: made = DispatchSource.makeReadSource(fileDescriptor: fd, queue: target)
    case .signal: made = DispatchSource.makeSignalSource(signal: fd, queue: target)
    case .timer: made = DispatchSource.makeTimerSource(flags: .init(rawValue: mask & CSourceType.strictTimer), queue: target)
    case .vnode:
        made = DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: .init(rawValue: mask), queue: target)
    case .write: made = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: target)
    }
    return CObject.retainedHandle(made as! DispatchSource, kind: .source)
}

@_cdecl("cnv_dispatch_source_set_event_handler_f")
package func cnv_dispatch_source_set_event_handler_f(_ source: UnsafeMutableRawPointer?, _ handler: CFunction?) {
    CSource.setFunction(source, 0, handler, "dispatch_source_set_event_handler_f")
}

@_cdecl("cnv_dispatch_source_set_cancel_handler_f")
package func cnv_dispatch_source_set_cancel_handler_f(_ source: UnsafeMutableRawPointer?, _ handler: CFunction?) {
    CSource.setFunction(source, 1, handler, "dispatch_source_set_cancel_handler_f")
}

@_cdecl("cnv_dispatch_source_set_registration_handler_f")
package func cnv_dispatch_source_set_registration_handler_f(_ source: UnsafeMutableRawPointer?, _ handler: CFunction?) {
    CSource.setFunction(source, 2, handler, "dispatch_source_set_registration_handler_f")
}

/// The block forms' entry (called by the C target): `which` is 0 event, 1 cancel,
/// 2 registration; `block` is a copy that `release` frees once the source drops it.
@_cdecl("cnv_capi_source_set_block_handler")
package func cnv_capi_source_set_block_handler(_ source: UnsafeMutableRawPointer?, _ which: Int32, _ invoke: CFunction,
                                       _ block: UnsafeMutableRawPointer?, _ release: CFunction) {
    let target = CSource.source(source, "dispatch_source_set_handler")
    guard block != nil else {
        target.setHandler(CSource.kind(which), nil)
        return
    }
    let holder = CBlockHandler(invoke: invoke, block: block, release: release)
    target.setHandler(CSource.kind(which), SourceHandler(.closure({ holder.invoke(holder.block) }), band: nil))
}

@_cdecl("cnv_dispatch_source_cancel")
package func cnv_dispatch_source_cancel(_ source: UnsafeMutableRawPointer?) {
    CSource.source(source, "dispatch_source_cancel").cancelSource()
}

@_cdecl("cnv_dispatch_source_testcancel")
package func cnv_dispatch_source_testcancel(_ source: UnsafeMutableRawPointer?) -> Int {
    CSource.source(source, "dispatch_source_testcancel").isCancelled ? 1 : 0
}

@_cdecl("cnv_dispatch_source_get_data")
package func cnv_dispatch_source_get_data(_ source: UnsafeMutableRawPointer?) -> UInt {
    CSource.source(source, "dispatch_source_get_data").data
}

@_cdecl("cnv_dispatch_source_get_mask")
package func cnv_dispatch_source_get_mask(_ source: UnsafeMutableRawPointer?) -> UInt {
    CSource.source(source, "dispatch_source_get_mask").mask
}

@_cdecl("cnv_dispatch_source_get_handle")
package func cnv_dispatch_source_get_handle(_ source: UnsafeMutableRawPointer?) -> UInt {
    CSource.source(source, "dispatch_source_get_handle").handle
}

@_cdecl("cnv_dispatch_source_merge_data")
package func cnv_dispatch_source_merge_data(_ source: UnsafeMutableRawPointer?, _ value: UInt) {
    let target = CSource.source(source, "dispatch_source_merge_data")
    switch target.kind {
    case .userDataAdd: target.mergeUserData(value, as: .add)
    case .userDataOr: target.mergeUserData(value, as: .or)
    case .userDataReplace: target.mergeUserData(value, as: .replace)
    default: fatalError("Conveyor: dispatch_source_merge_data on a \(target.kind.rawValue) source (only DATA_ADD, DATA_OR and DATA_REPLACE sources take merged data)")
    }
}

@_cdecl("cnv_dispatch_source_set_timer")
package func cnv_dispatch_source_set_timer(_ source: UnsafeMutableRawPointer?, _ start: UInt64, _ interval: UInt64, _ leeway: UInt64) {
    let timer = CSource.source(source, "dispatch_source_set_timer")
    guard timer.kind == .timer else {
        fatalError("Conveyor: dispatch_source_set_timer on a \(timer.kind.rawValue) source")
    }
    let repeating: DispatchTimeInterval = interval == TimeEncoding.forever || interval > UInt64(Int.max)
        ? .never : .nanoseconds(Int(interval))
    let slack: DispatchTimeInterval = leeway > UInt64(Int.max) ? .never : .nanoseconds(Int(leeway))
    switch CTime.decode(start) {
    case .forever: timer.schedule(deadline: .distantFuture, repeating: repeating, leeway: slack)
    case .uptime(let deadline): timer.schedule(deadline: deadline, repeating: repeating, leeway: slack)
    case .wall(let deadline): timer.schedule(wallDeadline: deadline, repeating: repeating, leeway: slack)
    }
}
