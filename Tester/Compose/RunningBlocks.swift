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

#if CONVEYOR
import CComposeConveyor
#else
import CComposeDispatch
#endif

/// Which checked block each thread is inside now, by kernel thread id, for the hang
/// report: a hang's threads in their waits say where they wait, this says for which op
/// (a crowd member, a busy poster, a group's waiter), which a pool's state alone does
/// not (which waiters took its reserve threads). Behind a pthread mutex (`Locked`), which
/// ThreadSanitizer sees, as the tester runs under it in CI.
enum RunningBlocks {
    private static let byThread = Locked<[Int32: String]>([:])

    /// The calling thread enters the block `what` of queue `q`; returns what it was
    /// inside before (a block running `sync` inside another), for `leave`.
    static func enter(_ what: String, queue q: Int) -> String? {
        let thread = compose_thread_id()
        return byThread.withLock { blocks in
            let outer = blocks[thread]
            blocks[thread] = "\(what) on q\(q)" + (outer.map { ", inside \($0)" } ?? "")
            return outer
        }
    }

    /// The calling thread left the block it entered last; `outer` is what `enter` returned.
    static func leave(restoring outer: String?) {
        let thread = compose_thread_id()
        byThread.withLock { $0[thread] = outer }
    }

    /// "tid: block" lines, by thread id.
    static var description: [String] {
        byThread.withLock { blocks in blocks.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" } }
    }
}
