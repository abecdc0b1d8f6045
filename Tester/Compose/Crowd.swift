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
import Glibc
import Synchronization

/// A crowd of `sync` callers (`Program.Op.crowd`), through either API: each member is a
/// block on `queue` that calls `sync` on one new queue; that `sync` runs on the member's
/// thread, and on a serial queue or as a barrier alone.
extension Runner {
    func crowd(_ q: Int, members: Int, serial: Bool, barrier: Bool, from submitter: Submitter) {
        let record = GroupRecord(members: members)
        let occupancy = Occupancy()
        let what = "a sync\(barrier ? " barrier" : "") onto a crowded new \(serial ? "serial" : "concurrent") queue"
        let checker = self.checker
        let timedOut: Bool
        func crowdFinishes(_ sync: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> Bool {
            membersFinish(members, on: q, what: "crowd member", record: record, from: submitter) {
                let caller = pthread_self()
                sync {
                    if pthread_equal(caller, pthread_self()) == 0 { checker.fail("\(what) ran on another thread") }
                    occupancy.enter(exclusive: serial || barrier, checker, what: what)
                }
            }
        }
        if program.api == .c {
            nonisolated(unsafe) let target = compose_c_queue_create("compose.crowd", serial ? 0 : 1, 0, nil, 2)!
            timedOut = !crowdFinishes { work in compose_c_sync(target, barrier ? 1 : 0, context(work), runContext) }
            compose_c_release(target)
        } else {
            let target = DispatchQueue(label: "compose.crowd", attributes: serial ? [] : .concurrent)
            timedOut = !crowdFinishes { work in target.sync(flags: barrier ? .barrier : [], execute: work) }
        }
        if timedOut {
            checker.fail("a crowd of \(members) blocks on q\(q), each \(what), was not done in time")
        } else {
            record.check(checker, after: "the crowd's wait")
        }
    }
}

extension Runner {
    /// Submits `count` blocks that `member` makes to queue `q` in a new group, through the
    /// program's API, and waits for the group within the liveness bound; false if it did
    /// not empty in time.
    func groupFinishes(_ count: Int, on q: Int, _ member: () -> @Sendable () -> Void) -> Bool {
        if program.api == .c {
            let group = compose_c_group_create()
            for _ in 0..<count { compose_c_group_async(group, cQueues[q], context(member()), runContext) }
            let finished = compose_c_group_wait(group, UInt64(liveness * 1e9)) == 0
            compose_c_release(group)
            return finished
        }
        let group = DispatchGroup()
        for _ in 0..<count { queues[q].async(group: group, execute: member()) }
        return group.wait(timeout: .now() + liveness) == .success
    }

    /// `groupFinishes` for `count` members of one group operation: each a checked block on
    /// `q` (`what`, in the submitter's order) that runs `body`, then counts itself in
    /// `record`, which holds it until then.
    func membersFinish(_ count: Int, on q: Int, what: String, record: GroupRecord, from submitter: Submitter,
                       _ body: @escaping @Sendable () -> Void) -> Bool {
        groupFinishes(count, on: q) {
            let capture = Capture(record)
            let order = submitter.order(q, in: program)
            checker.expect()
            return { [self] in
                withExtendedLifetime(capture) {}
                runBlock(q, barrier: false, what: what, order: order) { _ in body() }
                record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
        }
    }
}

/// How many blocks are inside one queue at once (crowd members in the new queue's `sync`,
/// the blocks a `postAndWait` operation posts).
final class Occupancy: @unchecked Sendable {
    private let inside = Atomic<Int>(0)

    func enter(exclusive: Bool, _ checker: Checker, what: String) {
        let before = inside.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        if exclusive && before != 0 { checker.fail("\(what) ran beside \(before) other(s)") }
        inside.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
}
