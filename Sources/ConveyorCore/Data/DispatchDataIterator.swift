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

/// Walks the bytes of a `DispatchData` in order, one at a time, region by region (no
/// contiguous copy is made).
public struct DispatchDataIterator: IteratorProtocol, Sequence {
    /// A byte.
    public typealias Element = UInt8

    private let storage: DataStorage
    private var sliceIndex = 0
    private var current: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    private var position = 0

    /// Creates an iterator over the given data.
    public init(_data: DispatchData) {
        storage = _data.storage
    }

    /// The next byte, or nil after the last.
    public mutating func next() -> DispatchData.Element? {
        while position == current.count {
            guard sliceIndex < storage.slices.count else { return nil }
            current = storage.slices[sliceIndex].bytes
            sliceIndex += 1
            position = 0
        }
        defer { position += 1 }
        return current[position]
    }
}
