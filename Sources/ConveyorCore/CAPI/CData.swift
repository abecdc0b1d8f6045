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
import Synchronization

// dispatch_data_*: a C data handle is a `CObject` of kind `.data` whose object is a
// `CDataHolder` around an immutable `DispatchData` value, so retain, release, context and
// finalizer work as for every other object. The empty data is the C target's static
// `cnv__dispatch_data_empty` (a tag word, like the main queue), never freed. The block
// forms (dispatch_data_create's destructor, dispatch_data_apply) are in the C target's
// data_io.c, which hands blocks over as a context and a C function.

/// The object behind a data handle: one immutable `DispatchData`.
final class CDataHolder: DispatchObject, @unchecked Sendable {
    let data: DispatchData

    init(_ data: DispatchData) {
        self.data = data
        super.init()
    }
}

/// `dispatch_data_apply`'s applier, as the C target calls it: context, region, the
/// region's offset, its bytes and their count; false stops the walk.
package typealias CDataApplier = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int,
                                                 UnsafeRawPointer?, Int) -> Bool

private let emptyDataHandleWord = Atomic<UInt>(0)

@_cdecl("cnv_capi_register_data_empty")
package func cnv_capi_register_data_empty(_ handle: UnsafeMutableRawPointer?) {
    // The first registration wins, as for the main queue (`cnv_capi_register_main_queue`).
    _ = emptyDataHandleWord.compareExchange(expected: 0, desired: UInt(bitPattern: handle), ordering: .acquiringAndReleasing)
}

/// The drop-in library's `_dispatch_data_empty`, as the program sees it: the handle data
/// calls answer for no bytes from then on.
@_cdecl("cnv_capi_register_drop_in_data_empty")
package func cnv_capi_register_drop_in_data_empty(_ handle: UnsafeMutableRawPointer?) {
    emptyDataHandleWord.store(UInt(bitPattern: handle), ordering: .releasing)
}

enum CData {
    static let emptyObject = CObject(CDataHolder(.empty), kind: .data, isGlobal: true)

    /// The static empty data's handle.
    static var emptyHandle: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: emptyDataHandleWord.load(ordering: .acquiring))!
    }

    /// The data behind a handle; traps on NULL and on other kinds of object.
    static func data(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchData {
        let box = CObject.from(handle, function)
        guard box.kind == .data else { fatalError("Conveyor: \(function) called with a \(box.kind), not a data object") }
        return unsafeDowncast(box.object, to: CDataHolder.self).data
    }

    /// A new reference to a handle for `data`: the empty data's static handle when it is
    /// empty, as libdispatch returns `dispatch_data_empty`.
    static func retainedHandle(_ data: DispatchData) -> UnsafeMutableRawPointer {
        if data.count == 0 { return emptyHandle }
        return CObject.retainedHandle(CDataHolder(data), kind: .data)
    }

    /// A new handle for data made on one new buffer (`dispatch_data_create`, a flattened
    /// map): its box lives as long as the buffer, which data made from this object (a
    /// concatenation, a subrange) shares, so its finalizer runs once they are all gone,
    /// as libdispatch's records keep such a leaf object. Other data objects are finalized
    /// at their own last release: libdispatch's data made from data keep the leaves, not
    /// the composite.
    static func retainedLeafHandle(_ data: DispatchData) -> UnsafeMutableRawPointer {
        let slices = data.storage.slices
        ensure(slices.count == 1, "Conveyor: a leaf data object has one buffer")
        return CObject.retainedHandle(CDataHolder(data), kind: .data, attachedTo: slices[0].region.cCompanion)
    }

    /// Another reference to an existing handle (the static empty data takes none).
    static func retained(_ handle: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        cnv_dispatch_retain(handle)
        return handle
    }
}

/// How dispatch_data_create's buffer is to be freed (the C target maps the destructor).
enum CDataDestructor: Int32 {
    case copy = 0, free, unmap, custom
}

@_cdecl("cnv_capi_data_create")
package func cnv_capi_data_create(_ buffer: UnsafeRawPointer?, _ size: Int, _ queue: UnsafeMutableRawPointer?,
                                  _ destructor: Int32, _ context: UnsafeMutableRawPointer?,
                                  _ function: CFunction?) -> UnsafeMutableRawPointer {
    let kind = CDataDestructor(rawValue: destructor) ?? .copy
    let target = queue.map { CObject.queue($0, "dispatch_data_create") }
    let bits = UInt(bitPattern: context)
    let custom: () -> Void = { function?(UnsafeMutableRawPointer(bitPattern: bits)) }
    guard let buffer, size > 0 else {
        // libdispatch: no bytes, the empty data; a destructor given still runs (at once
        // for free/munmap, on the queue for a block).
        switch kind {
        case .copy: break
        case .free: free(UnsafeMutableRawPointer(mutating: buffer))
        case .unmap: if let buffer { munmap(UnsafeMutableRawPointer(mutating: buffer), size) }
        case .custom: (target ?? DispatchQueue.global()).async(execute: UncheckedBlock(custom).run)
        }
        return CData.emptyHandle
    }
    let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
    let data: DispatchData
    switch kind {
    case .copy: data = DispatchData(bytes: bytes)
    case .free: data = DispatchData(bytesNoCopy: bytes, deallocator: .free)
    case .unmap: data = DispatchData(bytesNoCopy: bytes, deallocator: .unmap)
    case .custom: data = DispatchData(bytesNoCopy: bytes, deallocator: .custom(target, custom))
    }
    return CData.retainedLeafHandle(data)
}

@_cdecl("cnv_dispatch_data_get_size")
package func cnv_dispatch_data_get_size(_ handle: UnsafeMutableRawPointer?) -> Int {
    CData.data(handle, "dispatch_data_get_size").count
}

@_cdecl("cnv_dispatch_data_create_map")
package func cnv_dispatch_data_create_map(_ handle: UnsafeMutableRawPointer?,
                                          _ bufferOut: UnsafeMutablePointer<UnsafeRawPointer?>?,
                                          _ sizeOut: UnsafeMutablePointer<Int>?) -> UnsafeMutableRawPointer {
    let data = CData.data(handle, "dispatch_data_create_map")
    let slices = data.storage.slices
    let result: UnsafeMutableRawPointer
    let start: UnsafeRawPointer?
    if data.count == 0 {
        result = CData.emptyHandle
        start = nil
    } else if slices.count == 1 {
        // Already contiguous: the object itself, as libdispatch.
        result = CData.retained(handle!)
        start = slices[0].bytes.baseAddress
    } else {
        let copy = malloc(data.count)!
        data.copyBytes(to: UnsafeMutableRawBufferPointer(start: copy, count: data.count), from: 0..<data.count)
        let flat = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: copy, count: data.count), deallocator: .free)
        result = CData.retainedLeafHandle(flat)
        start = UnsafeRawPointer(copy)
    }
    bufferOut?.pointee = start
    sizeOut?.pointee = data.count
    return result
}

@_cdecl("cnv_dispatch_data_create_concat")
package func cnv_dispatch_data_create_concat(_ first: UnsafeMutableRawPointer?, _ second: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer {
    let head = CData.data(first, "dispatch_data_create_concat")
    let tail = CData.data(second, "dispatch_data_create_concat")
    // One side empty: the other object itself, as libdispatch.
    if head.count == 0 { return CData.retained(second!) }
    if tail.count == 0 { return CData.retained(first!) }
    var joined = head
    joined.append(tail)
    return CData.retainedHandle(joined)
}

@_cdecl("cnv_dispatch_data_create_subrange")
package func cnv_dispatch_data_create_subrange(_ handle: UnsafeMutableRawPointer?, _ offset: Int, _ length: Int) -> UnsafeMutableRawPointer {
    let data = CData.data(handle, "dispatch_data_create_subrange")
    // size_t arguments: anything past the end is clipped; nothing left gives the empty data.
    let start = UInt(bitPattern: offset), wanted = UInt(bitPattern: length)
    let count = UInt(data.count)
    guard start < count, wanted > 0 else { return CData.emptyHandle }
    let end = start + min(wanted, count - start)
    // The object itself only for exactly its own range: libdispatch makes a new object
    // when it clipped the length.
    if start == 0 && wanted == count { return CData.retained(handle!) }
    return CData.retainedHandle(data.subdata(in: Int(start)..<Int(end)))
}

@_cdecl("cnv_dispatch_data_copy_region")
package func cnv_dispatch_data_copy_region(_ handle: UnsafeMutableRawPointer?, _ location: Int,
                                           _ offsetOut: UnsafeMutablePointer<Int>?) -> UnsafeMutableRawPointer {
    let data = CData.data(handle, "dispatch_data_copy_region")
    let position = UInt(bitPattern: location)
    guard position < UInt(data.count) else {
        offsetOut?.pointee = data.count
        return CData.emptyHandle
    }
    let (region, offset) = data.region(location: Int(position))
    offsetOut?.pointee = offset
    if data.storage.slices.count == 1 { return CData.retained(handle!) }
    return CData.retainedHandle(region)
}

@_cdecl("cnv_capi_data_apply")
package func cnv_capi_data_apply(_ handle: UnsafeMutableRawPointer?, _ context: UnsafeMutableRawPointer?,
                                 _ applier: CDataApplier) -> Bool {
    let data = CData.data(handle, "dispatch_data_apply")
    let slices = data.storage.slices
    // One piece: the object itself is the region, as libdispatch passes it (its data
    // with one record maps directly).
    if slices.count == 1 {
        return applier(context, handle, 0, slices[0].bytes.baseAddress, slices[0].count)
    }
    for slice in slices {
        // The region object is the whole buffer the piece lies in (libdispatch passes the
        // leaf object its record holds); offset, buffer and size describe the piece.
        let whole = DataSlice(region: slice.region, start: 0, count: slice.region.count, offset: 0)
        let region = CData.retainedHandle(DispatchData(slice: whole))
        let goOn = applier(context, region, slice.offset, slice.bytes.baseAddress, slice.count)
        cnv_dispatch_release(region)
        if !goOn { return false }
    }
    return true
}

extension UncheckedBlock {
    /// Runs the block (for `DispatchQueue.async`, which takes a sendable closure).
    var run: @Sendable () -> Void { { [self] in block() } }
}
