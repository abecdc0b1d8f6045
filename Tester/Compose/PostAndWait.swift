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

extension Program {
    /// Where the members of a `postAndWait` operation post: one new serial queue they all
    /// share, one new concurrent queue, or a global queue.
    enum PostTarget: Int, Sendable, CaseIterable { case newSerial, newConcurrent, global }

    /// `threads` with posts-and-waits put in between what they do, from a stream of their
    /// own (seeds keep their programs), on plain threads only (their members block).
    static func addingPostAndWaits(to threads: [[Op]], seed: UInt64, queues: [Queue]) -> [[Op]] {
        var random = SeededRandom(seed: seed ^ 0x504F_5354_5741)
        let eligible = queues.filter { !$0.main }.map(\.index)
        var threads = threads
        for index in threads.indices where random.percent(30) {
            let op = Op.postAndWait(queue: eligible[random.below(eligible.count)], members: random.within(1...12),
                                    targetQoS: random.below(4), target: PostTarget.allCases[random.below(PostTarget.allCases.count)],
                                    kind: TimedWait.allCases[random.below(TimedWait.allCases.count)])
            threads[index].insert(op, at: random.below(threads[index].count + 1))
        }
        return threads
    }
}

extension Runner {
    /// Blocks that post and wait (`Program.Op.postAndWait`, plain threads): `members`
    /// blocks of `q` in a group, each posting one block to a queue of QoS `targetQoS`
    /// (`target`) and waiting for it on a semaphore, a group or as a work item (`kind`).
    /// Every posted block runs once (alone on a serial queue) and before its member's wait
    /// returns, and every member finishes. The members hold their threads while they
    /// wait, so with a lowered thread cap (and more members than threads) the posts must
    /// reach a thread beyond the busy ones; a member of a less important queue posting to a
    /// more important one and waiting at the cap hung Conveyor's pool (found by a review,
    /// not by this tester, which then had no such operation).
    ///
    /// Conveyor's build only: libdispatch on Linux starves here, one of its known faults
    /// (program 580535813, C API: twelve default blocks posting to a new default serial
    /// queue and waiting on groups hung with every member's thread blocked, as its pool
    /// adds a thread only when its monitor finds no runnable worker at all).
    func postAndWait(_ q: Int, members: Int, targetQoS: Int, target: Program.PostTarget, kind: Program.TimedWait,
                     from submitter: Submitter) {
        #if CONVEYOR
        // At a lowered cap, one such op at a time: the members of two, each waiting for
        // work of the other's band, can fill the cap with both bands' waiters, an exhausted
        // cap as on libdispatch when each of its classes has its 255 threads waiting so
        // (program 423139462, C API, cap 4 with 2 reserve threads: 9 background blocks
        // posting utility work and 9 utility blocks posting background work). One op's
        // members all finish: posts of their own band are handed off when they block,
        // posts of another band get band relief (`WorkerPool+BandRelief.swift`; before
        // it, 12 default blocks posting background work hung every time at a cap of 8,
        // program 771013229), and a handed-off waiter taken for a post costs a thread of
        // the stall breaker (`WorkerPool+StallBreaker.swift`; before it, at most 4
        // members on global queues ran here, as more stalled now and then: program
        // 666429750, items of two user-initiated concurrent queues, 22 waiters; program
        // 812076918, 12 default blocks posting to new utility concurrent queues). At the
        // full cap every op here runs as drawn.
        if capLowered {
            postAndWaitTurn.withLock { _ in
                runPostAndWait(q, members: members, targetQoS: targetQoS, target: target, kind: kind, from: submitter)
            }
        } else {
            runPostAndWait(q, members: members, targetQoS: targetQoS, target: target, kind: kind, from: submitter)
        }
        #endif
    }

    private func runPostAndWait(_ q: Int, members: Int, targetQoS: Int, target: Program.PostTarget, kind: Program.TimedWait,
                                from submitter: Submitter) {
        let record = GroupRecord(members: members)
        let occupancy = Occupancy()
        let destination = PostDestination(api: program.api, qos: targetQoS, target: target)
        let what = "a post to \(target) (QoS \(targetQoS)) waited for by \(kind)"
        let checker = self.checker
        let timedOut = !membersFinish(members, on: q, what: "a member waiting for \(what)", record: record, from: submitter) { [self] in
            let ran = Flag()
            let posted: @Sendable () -> Void = {
                occupancy.enter(exclusive: target == .newSerial, checker, what: what)
                ran.set()
            }
            if !destination.postAndWait(posted, kind: kind, runner: self) {
                checker.fail("\(what) from q\(q) did not return within \(liveness) s")
            } else if !ran.isSet {
                checker.fail("the wait for \(what) from q\(q) returned before the block ran")
            }
        }
        if timedOut {
            checker.fail("\(members) blocks on q\(q), each waiting for \(what), were not done in time")
            return   // the destination stays with the members still using it (a small leak)
        }
        record.check(checker, after: "the wait for \(members) members waiting for \(what)")
        destination.release()
    }
}

/// Held by the plain thread that runs a post-and-wait at a lowered cap (`Runner.postAndWait`).
private let postAndWaitTurn = Mutex<Void>(())

/// The queue a `postAndWait` operation's members post to, through the program's API.
private struct PostDestination: @unchecked Sendable {
    // A C handle is an address, safe to pass between threads; a Swift queue is Sendable.
    private let cQueue: UnsafeMutableRawPointer?
    private let queue: DispatchQueue?
    private let made: Bool

    init(api: Program.API, qos: Int, target: Program.PostTarget) {
        made = target != .global
        if api == .c {
            cQueue = made ? compose_c_queue_create("compose.post", target == .newConcurrent ? 1 : 0, 0, nil, Int32(qos))!
                          : compose_c_global(Int32(qos))!
            queue = nil
        } else {
            let global = DispatchQueue.global(qos: Runner.qos(qos).qosClass)
            queue = made ? DispatchQueue(label: "compose.post", attributes: target == .newConcurrent ? .concurrent : [], target: global)
                         : global
            cQueue = nil
        }
    }

    /// Posts `body` and waits for it within the liveness bound: false when the wait timed
    /// out (what it waited on is then left to the block: a small leak).
    func postAndWait(_ body: @escaping @Sendable () -> Void, kind: Program.TimedWait, runner: Runner) -> Bool {
        let seconds = runner.liveness
        switch kind {
        case .semaphore:
            let semaphore = runner.makeSemaphore(0)
            post { body(); semaphore.signal() }
            guard semaphore.wait(Int(seconds * 1e6)) else { return false }
            semaphore.release()
            return true
        case .group:
            let group = runner.makeGroup()
            group.enter()
            let leave = group.leave
            post { body(); leave() }
            guard group.wait(seconds) else { return false }
            group.release()
            return true
        case .workItem:
            if let cQueue {
                let block = compose_c_block_create(0, context(body), runContext)!
                compose_c_block_async(cQueue, block)
                guard compose_c_block_wait(block, UInt64(seconds * 1e9)) == 0 else { return false }
                compose_c_block_release(block)
                return true
            }
            let item = DispatchWorkItem(block: body)
            queue!.async(execute: item)
            return item.wait(timeout: .now() + seconds) == .success
        }
    }

    private func post(_ body: @escaping @Sendable () -> Void) {
        if let cQueue { compose_c_async(cQueue, 0, context(body), runContext) } else { queue!.async(execute: body) }
    }

    /// Lets a new C queue go once no member uses it.
    func release() {
        if made, let cQueue { compose_c_release(cQueue) }
    }
}
