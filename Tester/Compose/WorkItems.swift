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
import Conveyor
#else
import CComposeDispatch
import Dispatch
#endif

/// A work item through the program's API: a `DispatchWorkItem` (Swift API), or a block
/// object made by `dispatch_block_create` (C API), with what the tester does to one.
struct WorkItem {
    /// Submits the item to the program's queue of that index.
    let submit: (Int) -> Void
    /// Submits the item to the program's queue of that index, that many microseconds
    /// from now (C: a block submits it then; the shim has no `dispatch_after` of a block
    /// object).
    let submitAfter: (Int, Int) -> Void
    let cancel: () -> Void
    let isCancelled: () -> Bool
    /// Runs the block on the program's queue of that index once the item ended.
    let notify: (Int, @escaping @Sendable () -> Void) -> Void
    /// Waits at most that many seconds for the item to end: false when it timed out.
    let wait: (Double) -> Bool
    /// Lets the item go (the C block object); nothing is done with it after.
    let release: () -> Void
}

extension Runner {
    /// A work item running `body`, a barrier on concurrent queues when `barrier`.
    func makeWorkItem(barrier: Bool, _ body: @escaping @Sendable () -> Void) -> WorkItem {
        if program.api == .c {
            // A block object calls its function at most once, and the function frees its
            // context; one cancelled never frees it (a small leak per cancelled item, so
            // that one wrongly run still reports instead of reading freed memory).
            let block = compose_c_block_create(barrier ? 1 : 0, context(body), runContext)!
            return WorkItem(
                submit: { [self] q in compose_c_block_async(cQueues[q], block) },
                submitAfter: { [self] q, microseconds in
                    // A C handle is an address, safe to pass between threads.
                    nonisolated(unsafe) let handle = block
                    submitAfter(q, microseconds: microseconds) { [self] in compose_c_block_async(cQueues[q], handle) }
                },
                cancel: { compose_c_block_cancel(block) },
                isCancelled: { compose_c_block_testcancel(block) != 0 },
                notify: { [self] q, work in compose_c_block_notify(block, cQueues[q], context(work), runContext) },
                wait: { seconds in compose_c_block_wait(block, UInt64(seconds * 1e9)) == 0 },
                release: { compose_c_block_release(block) })
        }
        let item = DispatchWorkItem(flags: barrier ? .barrier : [], block: body)
        return WorkItem(
            submit: { [self] q in queues[q].async(execute: item) },
            submitAfter: { [self] q, microseconds in queues[q].asyncAfter(deadline: .now() + .microseconds(microseconds), execute: item) },
            cancel: { item.cancel() },
            isCancelled: { item.isCancelled },
            notify: { [self] q, work in item.notify(queue: queues[q], execute: work) },
            wait: { seconds in item.wait(timeout: .now() + seconds) == .success },
            release: {})
    }

    /// A work item (`Program.Op.workItem`) on `q`, cancelled before it is submitted when
    /// `cancel`: it runs once as a block of `q` (never when cancelled), its notify on
    /// `notify` runs once and after it, and `wait` returns after it.
    func workItem(_ q: Int, barrier: Bool, cancel: Bool, notify: Int?, wait: Bool, from submitter: Submitter) {
        let flag = Flag()
        let order = cancel ? nil : submitter.order(q, in: program)
        if !cancel { checker.expect() }
        let item = makeWorkItem(barrier: barrier) { [self] in
            if cancel { checker.fail("a work item cancelled before it was submitted ran on q\(q)"); return }
            runBlock(q, barrier: barrier, what: "work item", order: order) { _ in }
            flag.set()
        }
        defer { item.release() }
        if cancel { item.cancel() }
        item.submit(q)
        if let notify {
            item.notify(notify, notifyBlock(on: notify, what: "work item notify") { [self] in
                if !cancel && !flag.isSet { checker.fail("a work item's notify on q\(notify) ran before the item ended") }
            })
        }
        if wait {
            if !item.wait(liveness) {
                checker.fail("wait for a work item on q\(q) timed out")
            } else if !cancel && !flag.isSet {
                checker.fail("wait for a work item returned before the item on q\(q) ended")
            }
        }
    }

    /// A notify's block, expected to run once, as a block of `q`: runs `check` inside.
    func notifyBlock(on q: Int, what: String, _ check: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let once = Once(what)
        checker.expect()
        return { [self] in
            runBlock(q, barrier: false, what: what, order: nil) { _ in
                once.run(checker)
                check()
            }
        }
    }
}
