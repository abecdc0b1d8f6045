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

extension DispatchData {
    /// Calls `body` with all the bytes at one address. Data of one region is passed in
    /// place; data of several regions is copied once into one buffer that the data keeps
    /// for later calls and frees with itself.
    public func withUnsafeBytes<Result, ContentType>(
        body: (UnsafePointer<ContentType>) throws -> Result
    ) rethrows -> Result {
        let storage = self.storage
        return try withExtendedLifetime(storage) {
            // Empty data has no buffer; libdispatch maps it to a null pointer and then
            // force-unwraps it. A valid zero-length address is kinder and reads nothing.
            let raw = storage.contiguousBytes() ?? UnsafeRawPointer(DispatchData.emptyByte)
            let typed = raw.bindMemory(to: ContentType.self,
                                       capacity: storage.count / Swift.max(MemoryLayout<ContentType>.stride, 1))
            return try body(typed)
        }
    }

    /// A valid address for empty data's `withUnsafeBytes`.
    nonisolated(unsafe) static let emptyByte = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 16)

    /// Calls `block` with each region in order: its bytes, its position in the data, and a
    /// flag that stops the walk when set.
    @available(swift 4.2)
    public func enumerateBytes(
        _ block: (_ buffer: UnsafeBufferPointer<UInt8>, _ byteIndex: Int, _ stop: inout Bool) -> Void
    ) {
        let storage = self.storage
        withExtendedLifetime(storage) {
            for slice in storage.slices {
                var stop = false
                block(slice.bytes.assumingMemoryBound(to: UInt8.self), slice.offset, &stop)
                if stop { return }
            }
        }
    }

    /// Appends a copy of `count` bytes at `bytes`.
    @available(swift, deprecated: 4, message: "Use append(_: UnsafeRawBufferPointer) instead")
    public mutating func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        append(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Appends a copy of the bytes (a nil buffer appends nothing).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        appendSlices([DataSlice(region: DataRegion.copying(base, count: bytes.count),
                                start: 0, count: bytes.count, offset: 0)])
    }

    /// Appends `other`'s regions, sharing them (no bytes are copied).
    public mutating func append(_ other: DispatchData) {
        if other.count == 0 { return }
        if count == 0 {
            self = other
            return
        }
        appendSlices(other.storage.slices)
    }

    /// Appends a copy of the buffer's bytes (`MemoryLayout<SourceType>.stride * buffer.count`).
    public mutating func append<SourceType>(_ buffer: UnsafeBufferPointer<SourceType>) {
        append(UnsafeRawBufferPointer(buffer))
    }

    /// Adds slices at the end, in place when this value holds the only reference.
    mutating func appendSlices<S: Sequence<DataSlice>>(_ slices: S) {
        if storage === DataStorage.empty || !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
        storage.append(contentsOf: slices)
    }

    /// Copies the bytes in `range` (cut at the end of the data) to `pointer`, region by
    /// region, as libdispatch does.
    private func copyBytes(into pointer: UnsafeMutableRawPointer, range: Range<Index>) {
        if range.isEmpty { return }
        let wanted = range.count
        var copied = 0
        for slice in storage.slices {
            if slice.offset >= range.upperBound { return }
            let skip = range.lowerBound > slice.offset ? range.lowerBound - slice.offset : 0
            if skip >= slice.count { continue }
            let n = Swift.min(wanted - copied, slice.count - skip)
            (pointer + copied).copyMemory(from: slice.region.base + slice.start + skip, byteCount: n)
            copied += n
            if copied >= wanted { return }
        }
    }

    /// Copies the first `count` bytes to `pointer`, which must have room for them.
    @available(swift, deprecated: 4, message: "Use copyBytes(to: UnsafeMutableRawBufferPointer, count: Int) instead")
    public func copyBytes(to pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        copyBytes(into: UnsafeMutableRawPointer(pointer), range: 0..<count)
    }

    /// Copies the first `count` bytes into `pointer`, which must hold at least `count` bytes.
    public func copyBytes(to pointer: UnsafeMutableRawBufferPointer, count: Int) {
        assert(count <= pointer.count, "Buffer too small to copy \(count) bytes")
        guard let base = pointer.baseAddress else { return }
        copyBytes(into: base, range: 0..<count)
    }

    /// Copies the bytes in `range` to `pointer`, which must have room for them.
    @available(swift, deprecated: 4, message: "Use copyBytes(to: UnsafeMutableRawBufferPointer, from: Range<Index>) instead")
    public func copyBytes(to pointer: UnsafeMutablePointer<UInt8>, from range: Range<DispatchData.Index>) {
        copyBytes(into: UnsafeMutableRawPointer(pointer), range: range)
    }

    /// Copies the bytes in `range` into `pointer`, which must hold at least `range.count` bytes.
    public func copyBytes(to pointer: UnsafeMutableRawBufferPointer, from range: Range<DispatchData.Index>) {
        assert(range.count <= pointer.count, "Buffer too small to copy \(range.count) bytes")
        guard let base = pointer.baseAddress else { return }
        copyBytes(into: base, range: range)
    }

    /// Copies as many bytes of `range` (all the data if nil) as fit into `buffer` and
    /// returns how many were copied. A range outside the data traps.
    public func copyBytes<DestinationType>(
        to buffer: UnsafeMutableBufferPointer<DestinationType>, from range: Range<DispatchData.Index>? = nil
    ) -> Int {
        let total = count
        guard total > 0 else { return 0 }
        let room = buffer.count * MemoryLayout<DestinationType>.stride
        let copyRange: Range<Index>
        if let range {
            guard !range.isEmpty else { return 0 }
            ensure(range.lowerBound >= 0, "The range is outside the bounds of the data")
            ensure(range.lowerBound < total, "The range is outside the bounds of the data")
            ensure(range.upperBound >= 0, "The range is outside the bounds of the data")
            ensure(range.upperBound <= total, "The range is outside the bounds of the data")
            copyRange = range.lowerBound..<(range.lowerBound + Swift.min(room, range.count))
        } else {
            copyRange = 0..<Swift.min(room, total)
        }
        guard !copyRange.isEmpty, let base = buffer.baseAddress else { return 0 }
        copyBytes(into: UnsafeMutableRawPointer(base), range: copyRange)
        return copyRange.count
    }

    /// The bytes in `range` as new data that shares this data's regions. A range that
    /// starts at or past the end gives empty data; one that runs past the end is cut.
    public func subdata(in range: Range<DispatchData.Index>) -> DispatchData {
        let total = count
        if range.lowerBound < 0 || range.lowerBound >= total || range.isEmpty { return .empty }
        let upper = Swift.min(range.upperBound, total)
        if range.lowerBound == 0 && upper == total { return self }
        var result = ContiguousArray<DataSlice>()
        var index = storage.sliceIndex(containing: range.lowerBound)
        while index < storage.slices.count, storage.slices[index].offset < upper {
            let slice = storage.slices[index]
            let from = Swift.max(range.lowerBound, slice.offset)
            let to = Swift.min(upper, slice.end)
            result.append(DataSlice(region: slice.region, start: slice.start + from - slice.offset,
                                    count: to - from, offset: from - range.lowerBound))
            index += 1
        }
        return DispatchData(storage: DataStorage(slices: result, count: upper - range.lowerBound))
    }

    /// The region holding byte `location`, as data, and the position where that region
    /// starts in this data; `(empty, count)` when `location` is not in the data.
    public func region(location: Int) -> (data: DispatchData, offset: Int) {
        guard location >= 0 && location < count else { return (.empty, count) }
        let slice = storage.slices[storage.sliceIndex(containing: location)]
        if storage.slices.count == 1 { return (self, 0) }
        return (DispatchData(slice: slice), slice.offset)
    }
}

extension DispatchData {
    /// Calls `body` with each contiguous run of the data's bytes, in order, and the object
    /// whose lifetime keeps that run's memory valid (for the bridge to the toolchain's
    /// `DispatchData`, which shares the bytes instead of copying them).
    package func forEachRegion(_ body: (UnsafeRawBufferPointer, AnyObject) -> Void) {
        for slice in storage.slices where slice.count > 0 { body(slice.bytes, slice.region) }
    }
}
