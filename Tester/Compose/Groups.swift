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
import Synchronization

/// A group through the program's API: a `DispatchGroup`, or a C `dispatch_group_t`.
struct GroupHandle {
    let enter: () -> Void
    /// Sendable: a member block calls it.
    let leave: @Sendable () -> Void
    /// Submits a member block to the program's queue of that index.
    let async: (Int, @escaping @Sendable () -> Void) -> Void
    /// Runs the block on the program's queue of that index once the group is empty.
    let notify: (Int, @escaping @Sendable () -> Void) -> Void
    /// Waits at most that many seconds for the group to empty: false when it timed out.
    let wait: (Double) -> Bool
    /// Lets the group go (C); its members and notifies keep it while they need it.
    let release: () -> Void
}

extension Runner {
    func makeGroup() -> GroupHandle {
        if program.api == .c {
            let group = compose_c_group_create()!
            // A C handle is an address, safe to pass between threads.
            nonisolated(unsafe) let handle = group
            return GroupHandle(
                enter: { compose_c_group_enter(group) },
                leave: { compose_c_group_leave(handle) },
                async: { [self] q, body in compose_c_group_async(group, cQueues[q], context(body), runContext) },
                notify: { [self] q, body in compose_c_group_notify(group, cQueues[q], context(body), runContext) },
                wait: { seconds in compose_c_group_wait(group, UInt64(seconds * 1e9)) == 0 },
                release: { compose_c_release(group) })
        }
        let group = DispatchGroup()
        return GroupHandle(
            enter: { group.enter() },
            leave: { group.leave() },
            async: { [self] q, body in queues[q].async(group: group, execute: body) },
            notify: { [self] q, body in group.notify(queue: queues[q], execute: body) },
            wait: { seconds in group.wait(timeout: .now() + seconds) == .success },
            release: {})
    }

    /// A fan-out (`Program.Op.fanOut`): `members` blocks to `q` in a new group, a notify
    /// on `notify`, a `wait`. The notify and the wait must come after every member
    /// finished and let go of what it captured; the group's members and notify keep it
    /// alive after the caller lets it go (libdispatch's rule).
    func fanOut(_ q: Int, members: Int, notify: Int?, wait: Bool, from submitter: Submitter) {
        let group = makeGroup()
        defer { group.release() }
        let record = GroupRecord(members: members)
        for _ in 0..<members {
            let capture = Capture(record)
            let order = submitter.order(q, in: program)
            checker.expect()
            group.async(q) { [self] in
                withExtendedLifetime(capture) {}
                runBlock(q, barrier: false, what: "group member", order: order) { _ in }
                record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
        }
        if let notify {
            group.notify(notify, notifyBlock(on: notify, what: "group notify") { [self] in
                record.check(checker, after: "group notify on q\(notify)")
            })
        }
        if wait {
            if !group.wait(liveness) {
                checker.fail("group wait for \(members) blocks on q\(q) timed out")
            } else {
                record.check(checker, after: "group wait")
            }
        }
    }

    /// One group used again and again (`Program.Op.groupWaves`, plain threads only): a wave
    /// of members to `q` (by `enter`, a block and `leave` when `manual`, else as group
    /// members), then a notify on `notify`; the next wave comes right away, or after a
    /// `wait` for the group when `waitBetween`. A notify must run once, and only after
    /// every member entered before it was registered has finished (members of later waves
    /// may hold it back, as the group is not empty before they finish); each wait returns
    /// after every member entered so far finished. Empty waves register a notify on an
    /// empty group, which must still run.
    func groupWaves(_ q: Int, waves: [Int], notify: Int, manual: Bool, waitBetween: Bool, from submitter: Submitter) {
        let group = makeGroup()
        defer { group.release() }
        let finished = Atomic<Int>(0)
        var entered = 0
        for (wave, members) in waves.enumerated() {
            for _ in 0..<members {
                let order = submitter.order(q, in: program)
                checker.expect()
                let member: @Sendable () -> Void = { [self] in
                    runBlock(q, barrier: false, what: "a member of wave \(wave) of a group used again", order: order) { _ in }
                    finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
                }
                if manual {
                    group.enter()
                    let leave = group.leave
                    async(q) {
                        member()
                        leave()
                    }
                } else {
                    group.async(q, member)
                }
            }
            entered += members
            let before = entered
            let what = "the notify after wave \(wave) of a group used again"
            group.notify(notify, notifyBlock(on: notify, what: what) { [self] in
                let seen = finished.load(ordering: .sequentiallyConsistent)
                if seen < before { checker.fail("\(what) on q\(notify) ran after \(seen) of the \(before) members entered before it finished") }
            })
            if waitBetween {
                if !group.wait(liveness) {
                    checker.fail("a wait for a group used again (after wave \(wave)) timed out")
                } else if finished.load(ordering: .sequentiallyConsistent) < before {
                    checker.fail("a wait for a group used again returned before its \(before) members finished")
                }
            }
        }
    }
}
