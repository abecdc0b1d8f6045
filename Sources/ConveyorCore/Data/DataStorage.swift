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

/// The slices of one `DispatchData` value, in order, and its contiguous copy once someone
/// asked for one. Values share a storage until one of them appends (copy on write).
final class DataStorage: @unchecked Sendable {
    // Written only while uniquely referenced (by `DispatchData`'s mutating members).
    var slices: ContiguousArray<DataSlice>
    var count: Int
    /// The contiguous copy `withUnsafeBytes` made of several slices (0 = none yet); freed
    /// with the storage, or when a unique owner appends.
    private let flattened = Atomic<UInt>(0)

    init(slices: ContiguousArray<DataSlice> = [], count: Int = 0) {
        self.slices = slices
        self.count = count
    }

    static let empty = DataStorage()

    deinit { dropFlattened() }

    func copy() -> DataStorage { DataStorage(slices: slices, count: count) }

    /// Appends slices (their offsets are rebased); the caller holds the only reference.
    func append<S: Sequence<DataSlice>>(contentsOf added: S) {
        dropFlattened()
        for var slice in added {
            slice.offset = count
            count += slice.count
            slices.append(slice)
        }
    }

    private func dropFlattened() {
        let old = flattened.exchange(0, ordering: .acquiring)
        if old != 0 { free(UnsafeMutableRawPointer(bitPattern: old)) }
    }

    /// The index of the slice holding byte `position` (0 ≤ position < count).
    func sliceIndex(containing position: Int) -> Int {
        var low = 0
        var high = slices.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if slices[middle].offset <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// All bytes at one address: the only slice's, or one copy made once and kept.
    func contiguousBytes() -> UnsafeRawPointer? {
        if slices.count == 1 { return slices[0].bytes.baseAddress }
        if slices.isEmpty { return nil }
        let cached = flattened.load(ordering: .acquiring)
        if cached != 0 { return UnsafeRawPointer(bitPattern: cached) }
        let copy = malloc(count)!
        for slice in slices {
            (copy + slice.offset).copyMemory(from: slice.region.base + slice.start, byteCount: slice.count)
        }
        // Two readers may flatten at once: the first exchange wins, the loser frees its copy
        // and uses the winner's. The releasing CAS pairs with the acquiring load above, so a
        // reader that sees the pointer also sees the bytes copied into it.
        let (won, current) = flattened.compareExchange(
            expected: 0, desired: UInt(bitPattern: copy), successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring)
        if won { return UnsafeRawPointer(copy) }
        free(copy)
        return UnsafeRawPointer(bitPattern: current)
    }

    /// True when a contiguous copy is cached (for tests).
    var hasFlattenedCopy: Bool { flattened.load(ordering: .acquiring) != 0 }
}
