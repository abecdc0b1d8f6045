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

#if canImport(Glibc)
import Glibc
#endif

// dispatch_read, dispatch_write and dispatch_io_*: channel handles are `CObject`s of kind
// `.io` around a `DispatchIO`. libdispatch has these calls only in block form; the C
// target's data_io.c copies each block once and hands it over here as a context with a C
// function that runs it and, after its last call, releases it. The data objects handed to
// a handler are the system's: released as soon as the handler returns (a handler keeps one
// with dispatch_retain), as libdispatch does.

/// dispatch_read / dispatch_write's handler: context, data (NULL for none), errno value.
package typealias CDataHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Void
/// A cleanup handler: context and errno value.
package typealias CCleanupHandler = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void
/// An I/O handler: context, done, data (NULL for none), errno value.
package typealias CIOHandler = @convention(c) (UnsafeMutableRawPointer?, Bool, UnsafeMutableRawPointer?, Int32) -> Void

enum CIO {
    static func channel(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchIO {
        let box = CObject.from(handle, function)
        guard box.kind == .io else { fatalError("Conveyor: \(function) called with a \(box.kind), not an I/O channel") }
        return unsafeDowncast(box.object, to: DispatchIO.self)
    }

    /// Calls `body` with a handle for `data` (NULL for nil) that lives only for the call.
    static func withHandle(_ data: DispatchData?, _ body: (UnsafeMutableRawPointer?) -> Void) {
        guard let data else { body(nil); return }
        let handle = CData.retainedHandle(data)
        body(handle)
        cnv_dispatch_release(handle)
    }

    /// A cleanup closure over a C handler (none when the function is NULL).
    static func cleanup(_ context: UnsafeMutableRawPointer?, _ function: CCleanupHandler?) -> @Sendable (Int32) -> Void {
        let bits = UInt(bitPattern: context)
        return { error in function?(UnsafeMutableRawPointer(bitPattern: bits), error) }
    }

    static func type(_ raw: UInt) -> DispatchIO.StreamType? { DispatchIO.StreamType(rawValue: raw) }
}

@_cdecl("cnv_capi_read")
package func cnv_capi_read(_ fd: Int32, _ length: Int, _ queue: UnsafeMutableRawPointer?,
                           _ context: UnsafeMutableRawPointer?, _ handler: CDataHandler) {
    let target = CObject.queue(queue, "dispatch_read")
    let bits = UInt(bitPattern: context)
    // SIZE_MAX (read to the end) arrives as -1, which the Swift call reads as "no limit".
    DispatchIO.read(fromFileDescriptor: fd, maxLength: length, runningHandlerOn: target) { data, error in
        CIO.withHandle(data) { handler(UnsafeMutableRawPointer(bitPattern: bits), $0, error) }
    }
}

@_cdecl("cnv_capi_write")
package func cnv_capi_write(_ fd: Int32, _ data: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?,
                            _ context: UnsafeMutableRawPointer?, _ handler: CDataHandler) {
    let bytes = CData.data(data, "dispatch_write")
    let target = CObject.queue(queue, "dispatch_write")
    let bits = UInt(bitPattern: context)
    DispatchIO.write(toFileDescriptor: fd, data: bytes, runningHandlerOn: target) { remaining, error in
        CIO.withHandle(remaining) { handler(UnsafeMutableRawPointer(bitPattern: bits), $0, error) }
    }
}

@_cdecl("cnv_capi_io_create")
package func cnv_capi_io_create(_ type: UInt, _ fd: Int32, _ queue: UnsafeMutableRawPointer?,
                                _ context: UnsafeMutableRawPointer?, _ cleanup: CCleanupHandler?) -> UnsafeMutableRawPointer? {
    let target = CObject.queue(queue, "dispatch_io_create")
    guard let kind = CIO.type(type) else { return nil }   // libdispatch: NULL for an unknown type
    let channel = DispatchIO(type: kind, fileDescriptor: fd, queue: target, cleanupHandler: CIO.cleanup(context, cleanup))
    return CObject.retainedHandle(channel, kind: .io)
}

@_cdecl("cnv_capi_io_create_with_path")
package func cnv_capi_io_create_with_path(_ type: UInt, _ path: UnsafePointer<Int8>?, _ oflag: Int32, _ mode: mode_t,
                                          _ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?,
                                          _ cleanup: CCleanupHandler?) -> UnsafeMutableRawPointer? {
    let target = CObject.queue(queue, "dispatch_io_create_with_path")
    guard let kind = CIO.type(type), let path else { return nil }
    // NULL for a relative path, as libdispatch.
    guard let channel = DispatchIO(type: kind, path: path, oflag: oflag, mode: mode, queue: target,
                                   cleanupHandler: CIO.cleanup(context, cleanup)) else { return nil }
    return CObject.retainedHandle(channel, kind: .io)
}

@_cdecl("cnv_capi_io_create_with_io")
package func cnv_capi_io_create_with_io(_ type: UInt, _ io: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?,
                                        _ context: UnsafeMutableRawPointer?, _ cleanup: CCleanupHandler?) -> UnsafeMutableRawPointer? {
    let source = CIO.channel(io, "dispatch_io_create_with_io")
    let target = CObject.queue(queue, "dispatch_io_create_with_io")
    guard let kind = CIO.type(type) else { return nil }
    let channel = DispatchIO(type: kind, io: source, queue: target, cleanupHandler: CIO.cleanup(context, cleanup))
    return CObject.retainedHandle(channel, kind: .io)
}

@_cdecl("cnv_capi_io_read")
package func cnv_capi_io_read(_ io: UnsafeMutableRawPointer?, _ offset: Int64, _ length: Int, _ queue: UnsafeMutableRawPointer?,
                              _ context: UnsafeMutableRawPointer?, _ handler: CIOHandler) {
    let channel = CIO.channel(io, "dispatch_io_read")
    let target = CObject.queue(queue, "dispatch_io_read")
    let bits = UInt(bitPattern: context)
    // SIZE_MAX (to the end of the file) arrives as -1.
    let wanted = length < 0 ? Int.max : length
    channel.read(offset: off_t(offset), length: wanted, queue: target) { done, data, error in
        CIO.withHandle(data) { handler(UnsafeMutableRawPointer(bitPattern: bits), done, $0, error) }
    }
}

@_cdecl("cnv_capi_io_write")
package func cnv_capi_io_write(_ io: UnsafeMutableRawPointer?, _ offset: Int64, _ data: UnsafeMutableRawPointer?,
                               _ queue: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ handler: CIOHandler) {
    let channel = CIO.channel(io, "dispatch_io_write")
    let bytes = CData.data(data, "dispatch_io_write")
    let target = CObject.queue(queue, "dispatch_io_write")
    let bits = UInt(bitPattern: context)
    channel.write(offset: off_t(offset), data: bytes, queue: target) { done, remaining, error in
        CIO.withHandle(remaining) { handler(UnsafeMutableRawPointer(bitPattern: bits), done, $0, error) }
    }
}

@_cdecl("cnv_capi_io_barrier")
package func cnv_capi_io_barrier(_ io: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    let bits = UInt(bitPattern: context)
    CIO.channel(io, "dispatch_io_barrier").barrier { function(UnsafeMutableRawPointer(bitPattern: bits)) }
}

@_cdecl("cnv_dispatch_io_close")
package func cnv_dispatch_io_close(_ io: UnsafeMutableRawPointer?, _ flags: UInt) {
    CIO.channel(io, "dispatch_io_close").close(flags: DispatchIO.CloseFlags(rawValue: flags))
}

@_cdecl("cnv_dispatch_io_get_descriptor")
package func cnv_dispatch_io_get_descriptor(_ io: UnsafeMutableRawPointer?) -> Int32 {
    CIO.channel(io, "dispatch_io_get_descriptor").fileDescriptor
}

@_cdecl("cnv_dispatch_io_set_high_water")
package func cnv_dispatch_io_set_high_water(_ io: UnsafeMutableRawPointer?, _ highWater: UInt) {
    // size_t: SIZE_MAX and everything above Int.max mean "no limit".
    CIO.channel(io, "dispatch_io_set_high_water").setLimit(highWater: Int(min(highWater, UInt(Int.max))))
}

@_cdecl("cnv_dispatch_io_set_low_water")
package func cnv_dispatch_io_set_low_water(_ io: UnsafeMutableRawPointer?, _ lowWater: UInt) {
    CIO.channel(io, "dispatch_io_set_low_water").setLimit(lowWater: Int(min(lowWater, UInt(Int.max))))
}

@_cdecl("cnv_dispatch_io_set_interval")
package func cnv_dispatch_io_set_interval(_ io: UnsafeMutableRawPointer?, _ interval: UInt64, _ flags: UInt) {
    CIO.channel(io, "dispatch_io_set_interval").setInterval(nanoseconds: interval, strict: flags & 1 != 0)
}
