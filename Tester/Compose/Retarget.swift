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
import Glibc
import Synchronization
/// A queue retargeted while active (`Program.Op.retarget`, C API): a new serial queue made
/// by `dispatch_queue_create`, moved onto `from` at once, given `before` blocks, moved
/// onto `to`, given `after` blocks (and a `sync` when `sync`), then released. Blocks
/// submitted before a move run under the old target, the rest under the new one (each is
/// checked as a block of that target's chain), one at a time and in order: libdispatch
/// moves an idle queue before the call returns and a busy one in order with its work.
extension Runner {
    func retarget(from: Int, to: Int, before: Int, after: Int, sync: Bool) {
        let queue = compose_c_queue_create_retargetable("compose.retargeted")!
        compose_c_set_target(queue, cQueues[from])
        let own = RetargetedQueue()
        let checker = self.checker
        func block(_ index: Int, on target: Int, what: String, caller: pthread_t? = nil) -> () -> Void {
            checker.expect()
            return { [self] in
                if let caller, pthread_equal(caller, pthread_self()) == 0 { checker.fail("\(what) ran on another thread") }
                runBlock(target, barrier: false, what: what, order: nil) { _ in own.run(index, checker, what: what) }
            }
        }
        var index = 0
        for _ in 0..<before {
            compose_c_async(queue, 0, context(block(index, on: from, what: "a block of a queue before its move from q\(from)")), runContext)
            index += 1
        }
        compose_c_set_target(queue, cQueues[to])
        for _ in 0..<after {
            compose_c_async(queue, 0, context(block(index, on: to, what: "a block of a queue after its move to q\(to)")), runContext)
            index += 1
        }
        if sync {
            compose_c_sync(queue, 0, context(block(index, on: to, what: "a sync onto a queue moved to q\(to)", caller: pthread_self())), runContext)
        }
        compose_c_release(queue)
    }
}

/// The retargeted queue's own rules: one block at a time, in the order submitted.
private final class RetargetedQueue: @unchecked Sendable {
    private let inside = Atomic<Int>(0)
    private let next = Atomic<Int>(0)

    func run(_ index: Int, _ checker: Checker, what: String) {
        if inside.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue != 0 {
            checker.fail("\(what) started while another block of that serial queue ran")
        }
        let expected = next.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        if expected != index { checker.fail("\(what) was submitted \(index)th and started \(expected)th") }
        inside.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
}
