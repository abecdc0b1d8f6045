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

import CConveyor

/// What a thread is running on: a stack of frames, one per queue whose work the thread is
/// running now (a drain, a `sync`, a redirected item of a concurrent queue). The frames
/// live on the thread's stack; the innermost one is in a thread-local slot.
@usableFromInline
struct DrainFrame {
    /// The queue whose work runs in this frame.
    @usableFromInline let queue: Unmanaged<DispatchQueue>
    /// Whether the queue is held alone (a serial queue, or a barrier on a concurrent one).
    @usableFromInline let isExclusive: Bool
    /// The frame outside this one.
    @usableFromInline let outer: UnsafeMutableRawPointer?

    /// Runs `body` with a frame for `queue` pushed on the calling thread.
    @inline(__always)
    static func with<R>(_ queue: DispatchQueue, exclusive: Bool, _ body: () throws -> R) rethrows -> R {
        var frame = DrainFrame(queue: .passUnretained(queue), isExclusive: exclusive, outer: cnv_tls_get_frame())
        return try withUnsafeMutablePointer(to: &frame) { pointer in
            cnv_tls_set_frame(UnsafeMutableRawPointer(pointer))
            defer { cnv_tls_set_frame(pointer.pointee.outer) }
            return try body()
        }
    }

    /// Calls `visit` for each frame of the calling thread, innermost first, until it returns false.
    static func forEach(_ visit: (DispatchQueue, Bool) -> Bool) {
        var current = cnv_tls_get_frame()
        while let raw = current {
            let frame = raw.assumingMemoryBound(to: DrainFrame.self).pointee
            if !visit(frame.queue.takeUnretainedValue(), frame.isExclusive) { return }
            current = frame.outer
        }
    }

    /// The queue the calling thread runs work of now, if any.
    static var innermostQueue: DispatchQueue? {
        guard let raw = cnv_tls_get_frame() else { return nil }
        return raw.assumingMemoryBound(to: DrainFrame.self).pointee.queue.takeUnretainedValue()
    }
}
