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

import Synchronization

// A concurrent queue's width limit: how many of its items may run at once
// (`dispatch_queue_set_width`, which the C API offers and Swift concurrency's runtime calls).
extension DispatchQueue {
    /// The limit for a width as libdispatch reads it (`dispatch_queue_set_width`'s 32-bit
    /// value): 0 is 1, and 4094 (libdispatch's widest) or more is no limit. A negative
    /// width, relative to the CPU count (Swift concurrency's queues), is no limit either:
    /// the pool already runs no more than one worker per CPU besides the blocked ones, and
    /// a limit that counted blocked items would keep tasks from starting while others
    /// block (libdispatch on Linux: of 64 tasks that block until all started, only as many
    /// as there are CPUs ever start). Half the pool's threads was tried, to keep hundreds
    /// of blocked tasks from taking every thread: Conveyor's suite under the drop-in
    /// library then failed 28 tests, not 14, as test bodies blocked at the limit waited
    /// for task continuations queued behind it.
    static func widthLimit(requested width: Int32) -> UInt16 {
        if width < 0 || width >= 4094 { return 0 }
        return UInt16(max(width, 1))
    }

    /// Sets how many items of this concurrent queue may run at once (0: no limit). Items
    /// already running go on; a wider limit starts queued items at once.
    ///
    /// Pairing: the limit is stored, then `wakeup` always runs (a drain of an empty list
    /// costs little, and this call is rare). Its compare-and-swap on `state` either takes
    /// the `enqueued` bit, and the drain it schedules reads the new limit, or sets `dirty`
    /// on a drain that holds the bit: that drain's `finish` then acquires the swap and
    /// looks again with the new limit. Waking only when the list looked non-empty lost a
    /// raise: an item pushed just after that look was drained by a drain that read the old
    /// limit and stopped at it, while the running items waited for that very item.
    final func setWidthLimit(_ limit: UInt16) {
        ensure(kind == .concurrent, "Conveyor: a width limit applies to concurrent queues only")
        widthLimit.store(limit, ordering: .relaxed)
        wakeup()
    }
}
