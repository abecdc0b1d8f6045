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

/// Page-aligned read buffers of one chunk, kept for reuse when the data made of them is
/// freed. A fresh 1 MiB buffer is an `mmap` whose 256 pages fault in on the first read
/// (about 0.5 ms per MiB, several times the cost of the read itself from the page
/// cache); a reused one is already mapped. At most `capacity` buffers are kept.
final class IOBufferPool: @unchecked Sendable {
    static let shared = IOBufferPool(bufferSize: ioChunkSize, capacity: 8)

    let bufferSize: Int
    private let capacity: Int
    private let lock = FutexLock()
    // Guarded by lock.
    private var free: [UnsafeMutableRawPointer] = []

    init(bufferSize: Int, capacity: Int) {
        self.bufferSize = bufferSize
        self.capacity = capacity
    }

    /// A buffer of `size` bytes: a pooled one when `size` is the pool's size.
    func take(size: Int) -> UnsafeMutableRawPointer {
        if size == bufferSize, let reused = lock.withLock({ free.popLast() }) { return reused }
        var memory: UnsafeMutableRawPointer?
        let rc = posix_memalign(&memory, Int(getpagesize()), max(size, 1))
        ensure(rc == 0, "Conveyor: cannot allocate a \(size)-byte I/O buffer (error \(rc))")
        return memory!
    }

    /// Gives a buffer of `size` bytes back: kept when it has the pool's size and the pool
    /// is not full, freed otherwise.
    func give(_ buffer: UnsafeMutableRawPointer, size: Int) {
        if size == bufferSize {
            let kept = lock.withLock {
                if free.count < capacity {
                    free.append(buffer)
                    return true
                }
                return false
            }
            if kept { return }
        }
        Glibc.free(buffer)
    }
}
