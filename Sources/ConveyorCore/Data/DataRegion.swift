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

/// One buffer that `DispatchData` values share by reference: its bytes never change, and
/// its deallocator runs exactly once, when the last value that reaches the buffer goes.
///
/// Appending and slicing copy references to regions, never bytes; a region is freed by
/// ARC when no slice refers to it any more.
final class DataRegion: @unchecked Sendable {
    /// How the buffer goes back to the system.
    enum Release {
        /// `free(3)` (copies Conveyor made, and `.free`).
        case free
        /// `munmap(2)` of the whole buffer.
        case unmap
        /// A user's block, run asynchronously on a queue (the default global queue if nil).
        case custom(DispatchQueue?, () -> Void)
        /// Back to an I/O buffer pool (the buffer has the pool's size, maybe not all used).
        case pool(IOBufferPool, capacity: Int)
    }

    let base: UnsafeRawPointer
    let count: Int
    private let release: Release

    /// Regions alive in the process (for leak tests).
    static let live = Atomic<Int>(0)

    /// The C handle's box of the data object made with this buffer (`dispatch_data_create`),
    /// retained, released after the buffer: as in libdispatch, where data made from other
    /// data keeps the objects that own the bytes, that object lives, and is finalized,
    /// with its buffer (see `CData.retainedLeafHandle`). Set once, before the region is
    /// shared; nil for other regions.
    let cCompanion = Atomic<UnsafeMutableRawPointer?>(nil)

    init(base: UnsafeRawPointer, count: Int, release: Release) {
        self.base = base
        self.count = count
        self.release = release
        Self.live.wrappingAdd(1, ordering: .relaxed)
    }

    /// A region holding a private copy of `count` bytes at `source`.
    static func copying(_ source: UnsafeRawPointer, count: Int) -> DataRegion {
        let copy = malloc(count)!
        copy.copyMemory(from: source, byteCount: count)
        return DataRegion(base: UnsafeRawPointer(copy), count: count, release: .free)
    }

    deinit {
        Self.live.wrappingAdd(-1, ordering: .relaxed)
        Self.dispose(base, count: count, release)
        if let companion = cCompanion.load(ordering: .acquiring) {
            Unmanaged<AnyObject>.fromOpaque(companion).release()
        }
    }

    /// Gives a buffer back as `release` says (also used for buffers that never became a
    /// region: libdispatch calls the deallocator of an empty buffer at once).
    static func dispose(_ base: UnsafeRawPointer?, count: Int, _ release: Release) {
        switch release {
        case .free:
            free(UnsafeMutableRawPointer(mutating: base))
        case .unmap:
            if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
        case .pool(let pool, let capacity):
            pool.give(UnsafeMutableRawPointer(mutating: base!), size: capacity)
        case .custom(let queue, let block):
            let box = UncheckedBlock(block)
            (queue ?? DispatchQueue.global()).async { box.block() }
        }
    }
}

/// A non-Sendable block handed to exactly one other thread, which runs it once.
struct UncheckedBlock: @unchecked Sendable {
    let block: () -> Void
    init(_ block: @escaping () -> Void) { self.block = block }
}

/// A byte range of one region, placed at `offset` in the value that holds it.
struct DataSlice {
    let region: DataRegion
    /// First byte within the region.
    let start: Int
    let count: Int
    /// Position of the first byte within the `DispatchData` value.
    var offset: Int

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: region.base + start, count: count) }
    var end: Int { offset + count }
}
