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

/// A work item cancelled while it waits in a suspended queue (`Program.Op.cancelQueued`):
/// `queue` is suspended, the item submitted (a barrier when `barrier`), an ordinary block
/// after it, the item cancelled, the queue resumed. The item's work must
/// never run; its notify (on `notify`) must run once, after the resume; `wait` must return
/// (once the queue has taken the item out); the block behind it must still run.
extension Runner {
    func cancelQueued(_ q: Int, barrier: Bool, notify: Int?, wait: Bool, from submitter: Submitter) {
        let window = SuspendWindow()
        let item = makeWorkItem(barrier: barrier) { [self] in
            checker.fail("a work item cancelled in suspended q\(q) ran")
        }
        defer { item.release() }
        suspend(q)
        item.submit(q)
        let order = submitter.order(q, in: program)
        checker.expect()
        async(q) { [self] in
            runBlock(q, barrier: false, what: "a block behind a cancelled work item", order: order, window: window) { _ in }
        }
        item.cancel()
        if !item.isCancelled() { checker.fail("a cancelled work item says it is not cancelled") }
        if let notify {
            let what = "a cancelled work item's notify"
            item.notify(notify, notifyBlock(on: notify, what: what) { [self] in
                if window.resumed.load(ordering: .sequentiallyConsistent) == 0 {
                    checker.fail("\(what) on q\(notify) ran while its queue q\(q) was suspended")
                }
            })
        }
        window.resumed.store(checker.tick(), ordering: .sequentiallyConsistent)
        resume(q)
        if wait, !item.wait(liveness) {
            checker.fail("wait for a work item cancelled in q\(q) timed out after the resume")
        }
    }
}
