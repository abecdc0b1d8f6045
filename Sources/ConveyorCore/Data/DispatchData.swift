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

/// An immutable run of bytes made of discontiguous memory regions, as the chapter's
/// dispatch data objects are: appending and slicing share the regions (by reference,
/// never by copying bytes), and each region's deallocator runs once, when no value
/// refers to it any more.
///
/// A `RandomAccessCollection` of `UInt8` indexed from 0.
public struct DispatchData: RandomAccessCollection, @unchecked Sendable {
    /// The iterator type: walks the bytes region by region.
    public typealias Iterator = DispatchDataIterator
    /// A byte position, from 0.
    public typealias Index = Int
    /// The valid positions.
    public typealias Indices = DefaultIndices<DispatchData>

    /// The empty data.
    public static let empty: DispatchData = DispatchData(storage: DataStorage.empty)

    /// How memory handed over with `init(bytesNoCopy:deallocator:)` is freed.
    public enum Deallocator {
        /// Use `free`.
        case free

        /// Use `munmap`.
        case unmap

        /// Run a custom block on a queue (the default global queue if nil).
        case custom(DispatchQueue?, () -> Void)

        var release: DataRegion.Release {
            switch self {
            case .free: return .free
            case .unmap: return .unmap
            case .custom(let queue, let block): return .custom(queue, block)
            }
        }
    }

    var storage: DataStorage

    init(storage: DataStorage) { self.storage = storage }

    init(region: DataRegion) {
        storage = DataStorage(slices: [DataSlice(region: region, start: 0, count: region.count, offset: 0)],
                              count: region.count)
    }

    init(slice: DataSlice) {
        var slice = slice
        slice.offset = 0
        storage = DataStorage(slices: [slice], count: slice.count)
    }

    /// Initializes the data with a copy of the bytes.
    ///
    /// - parameter bytes: A pointer to the memory. It will be copied.
    @available(swift, deprecated: 4, message: "Use init(bytes: UnsafeRawBufferPointer) instead")
    public init(bytes buffer: UnsafeBufferPointer<UInt8>) {
        self.init(bytes: UnsafeRawBufferPointer(buffer))
    }

    /// Initializes the data with a copy of the bytes.
    ///
    /// - parameter bytes: The memory to copy.
    public init(bytes buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            self.init(storage: DataStorage.empty)
            return
        }
        self.init(region: DataRegion.copying(base, count: buffer.count))
    }

    /// Initializes the data with the bytes in place, without copying them.
    ///
    /// - parameter bytes: The memory, which must not change while the data exists.
    /// - parameter deallocator: How to free the memory when the last reference goes.
    @available(swift, deprecated: 4, message: "Use init(bytesNoCopy: UnsafeRawBufferPointer, deallocater: Deallocator) instead")
    public init(bytesNoCopy bytes: UnsafeBufferPointer<UInt8>, deallocator: Deallocator = .free) {
        self.init(bytesNoCopy: UnsafeRawBufferPointer(bytes), deallocator: deallocator)
    }

    /// Initializes the data with the bytes in place, without copying them.
    ///
    /// A nil buffer gives empty data and the deallocator is never called; a buffer of zero
    /// bytes gives empty data and the deallocator is called at once (as libdispatch does).
    /// - parameter bytes: The memory, which must not change while the data exists.
    /// - parameter deallocator: How to free the memory when the last reference goes.
    public init(bytesNoCopy bytes: UnsafeRawBufferPointer, deallocator: Deallocator = .free) {
        guard let base = bytes.baseAddress else {
            self.init(storage: DataStorage.empty)
            return
        }
        if bytes.count == 0 {
            DataRegion.dispose(base, count: 0, deallocator.release)
            self.init(storage: DataStorage.empty)
            return
        }
        self.init(region: DataRegion(base: base, count: bytes.count, release: deallocator.release))
    }

    /// The number of bytes.
    public var count: Int { storage.count }

    /// The first position, 0.
    public var startIndex: Index { 0 }

    /// One past the last position, `count`.
    public var endIndex: Index { count }

    /// The position before `i`.
    public func index(before i: Index) -> Index { i - 1 }

    /// The position after `i`.
    public func index(after i: Index) -> Index { i + 1 }

    /// The byte at `index`.
    public subscript(index: Index) -> UInt8 {
        ensure(index >= 0 && index < count, "DispatchData: index \(index) out of range 0..<\(count)")
        let slice = storage.slices[storage.sliceIndex(containing: index)]
        return slice.region.base.load(fromByteOffset: slice.start + index - slice.offset, as: UInt8.self)
    }

    /// A view of the bytes in `bounds`.
    public subscript(bounds: Range<Int>) -> Slice<DispatchData> {
        Slice(base: self, bounds: bounds)
    }

    /// An iterator over the bytes, one at a time.
    public func makeIterator() -> DispatchData.Iterator {
        DispatchDataIterator(_data: self)
    }
}
