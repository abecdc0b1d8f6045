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
    /// One contiguous run of a data's bytes, as Foundation's `DispatchData.Region` is: a
    /// collection of those bytes, indexed by their positions in the whole data, that keeps
    /// them alive. (The `ConveyorDispatchInterop` product adds Foundation's `DataProtocol`
    /// and `ContiguousBytes` conformances, which need Foundation.)
    public struct Region: RandomAccessCollection {
        /// A byte position in the data the region came from.
        public typealias Index = Int
        /// The valid positions.
        public typealias Indices = Range<Int>
        /// A run of the region's bytes.
        public typealias SubSequence = Slice<Region>

        private let bytes: UnsafeRawBufferPointer
        /// The region of memory the bytes are in: kept alive with them.
        private let owner: AnyObject

        /// The position of the first byte in the data.
        public let startIndex: Int
        /// The position after the last byte.
        public var endIndex: Int { startIndex + bytes.count }

        init(_ slice: DataSlice) {
            bytes = slice.bytes
            owner = slice.region
            startIndex = slice.offset
        }

        /// The byte at `position` (a position in the whole data).
        public subscript(position: Int) -> UInt8 {
            precondition(position >= startIndex && position < endIndex, "Conveyor: index \(position) out of the region \(startIndex)..<\(endIndex)")
            return bytes[position - startIndex]
        }

        /// The region itself, as Foundation's `DataProtocol` asks of its regions.
        public var regions: CollectionOfOne<Region> { CollectionOfOne(self) }

        /// Calls `body` with the region's bytes, in place.
        public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try withExtendedLifetime(owner) { try body(bytes) }
        }
    }

    /// The data's contiguous runs of bytes, in order, shared, not copied (Foundation gives
    /// the toolchain's `DispatchData` this member; empty data has none).
    public var regions: [Region] { storage.slices.filter { $0.count > 0 }.map(Region.init) }
}
