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
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// `dispatch_set_target_queue` on a queue made by `dispatch_queue_create` while it is
/// active (issue 25, finding 7): libdispatch retargets such a queue in order with its work
/// and traps only for queues made inactive or with a target. Swift's `setTarget(queue:)`
/// keeps trapping on active queues (MisuseTrapTests), as Swift's queues are made with a
/// target. The C harness (Tests/CAPI/lifetime-test.c) checks order and the new target.
@Suite struct CAPIRetargetTests {
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    /// The queue that is retargeted, the serial queue it moves to, and the check that no
    /// two items of them ever overlap once the move is done.
    final class Exclusion: @unchecked Sendable {
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let moved = Atomic<Bool>(false)
        let done = Counter()

        func enter() {
            let before = inside.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
            if before != 0 && moved.load(ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
            for _ in 0..<200 { cnv_cpu_relax() }
            inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            done.increment()
        }
    }

    /// After the retarget, `async` items and `sync` calls on the queue are serialized with
    /// the new serial target's own items, also while `sync` callers race the move.
    @Test func retargetedQueueIsExcludedByItsNewSerialTarget() throws {
        for _ in 0..<20 {
            let handle = try #require(cnv_dispatch_queue_create("retargeted", nil))
            let target = try #require(cnv_dispatch_queue_create("new-target", nil))
            let queue = CObject.queue(handle, "test")
            let serialTarget = CObject.queue(target, "test")
            let state = Exclusion()
            let group = DispatchGroup()
            // sync callers racing the retarget
            for _ in 0..<2 {
                DispatchQueue.global().async(group: group) {
                    for _ in 0..<200 { queue.sync { state.enter() } }
                }
            }
            for _ in 0..<50 { queue.async(group: group) { state.enter() } }
            cnv_dispatch_set_target_queue(handle, target)
            // Marks the move done: every item after this one runs under the new target (an
            // `async` item, so that the drain that ran the move must itself hand over).
            queue.async(group: group) { state.moved.store(true, ordering: .releasing) }
            for _ in 0..<200 {
                queue.async(group: group) { state.enter() }
                serialTarget.async(group: group) { state.enter() }
            }
            for _ in 0..<100 { serialTarget.sync { state.enter() } }
            #expect(group.wait(timeout: deadline()) == .success)
            #expect(state.overlaps.load(ordering: .relaxed) == 0)
            #expect(state.done.current == 2 * 200 + 50 + 400 + 100)
            cnv_dispatch_release(handle)
            cnv_dispatch_release(target)
        }
    }

    /// A concurrent queue from dispatch_queue_create moves too, after its running items.
    @Test func concurrentQueueRetargetsAfterItsRunningItems() throws {
        let handle = try #require(cnv_dispatch_queue_create("retargeted-concurrent", CQueueAttributes(concurrent: true).handle))
        let target = try #require(cnv_dispatch_queue_create("new-serial-target", nil))
        let queue = CObject.queue(handle, "test")
        let before = Counter(), afterSawAll = Counter()
        let group = DispatchGroup()
        for _ in 0..<20 { queue.async(group: group) { usleep(500); before.increment() } }
        cnv_dispatch_set_target_queue(handle, target)
        queue.async(group: group) { if before.current == 20 { afterSawAll.increment() } }
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(afterSawAll.current == 1)
        #expect(queue.targetQueue === CObject.queue(target, "test"))
        cnv_dispatch_release(handle)
        cnv_dispatch_release(target)
    }

    /// An idle queue is retargeted before the call returns, as libdispatch's try-sync does:
    /// its next item runs on the new target even while the old one is suspended (a
    /// fresh-eyes review found it held there until the old target resumed).
    @Test(arguments: [false, true])
    func anIdleQueueMovesAtOnceAwayFromASuspendedTarget(concurrent: Bool) throws {
        let oldTarget = try #require(cnv_dispatch_queue_create("old-target", nil))
        let newTarget = try #require(cnv_dispatch_queue_create("new-target", nil))
        let handle = try #require(cnv_dispatch_queue_create("moving", CQueueAttributes(concurrent: concurrent).handle))
        cnv_dispatch_set_target_queue(handle, oldTarget)
        let queue = CObject.queue(handle, "test")
        queue.sync {}   // idle again
        cnv_dispatch_suspend(oldTarget)
        cnv_dispatch_set_target_queue(handle, newTarget)
        #expect(queue.targetQueue === CObject.queue(newTarget, "test"))
        let ran = DispatchSemaphore(value: 0)
        let newQueue = CObject.queue(newTarget, "test")
        let onNewTarget = TestLog<Bool>()
        queue.async {
            onNewTarget.append(isRunning(on: newQueue, exclusively: false))
            ran.signal()
        }
        #expect(ran.wait(timeout: deadline()) == .success)
        #expect(onNewTarget.values == [true])
        cnv_dispatch_resume(oldTarget)
        [handle, oldTarget, newTarget].forEach { cnv_dispatch_release($0) }
    }

    /// Retargeted at once, the queue's `sync` from a thread holding the new target is the
    /// deadlock it is, and traps (it hung, waiting behind the retarget barrier).
    @Test func syncRightAfterAnIdleRetargetOntoAHeldTargetTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let target = cnv_dispatch_queue_create("held-target", nil)
            let queue = cnv_dispatch_queue_create("moved", nil)
            CObject.queue(target, "test").sync {
                cnv_dispatch_set_target_queue(queue, target)
                CObject.queue(queue, "test").sync {}
            }
        }
        #expect(Self.message(result).contains("sync called on queue 'moved' already owned by the current thread (through its target 'held-target')"))
    }

    /// Which global queue a C queue is "on" (`dispatch_assert_queue`), as libdispatch
    /// targets it: a serial queue made with overcommit switched off is on the plain global
    /// queue (not the overcommitting one a serial queue defaults to), and one retargeted to
    /// NULL is on the default global queue's overcommitting form whatever its own QoS
    /// (libdispatch's `DISPATCH_TARGET_QUEUE_DEFAULT`), still running at its own QoS.
    @Test func cQueuesRunOnTheGlobalQueueLibdispatchGivesThem() throws {
        func onQueues(_ handle: UnsafeMutableRawPointer) -> [Bool] {
            let asks = [DispatchQueue.root(for: .default), DispatchQueue.overcommitRoot(for: .default),
                        DispatchQueue.root(for: .utility), DispatchQueue.overcommitRoot(for: .utility)]
            return CObject.queue(handle, "test").sync { asks.map { isRunning(on: $0, exclusively: false) } }
        }
        let plain = try #require(cnv_dispatch_queue_create("not-overcommitting", cnv_dispatch_queue_attr_make_with_overcommit(nil, false)))
        #expect(onQueues(plain) == [true, false, false, false])
        let utilityAttributes = cnv_dispatch_queue_attr_make_with_qos_class(nil, DispatchQoS.QoSClass.utility.cValue, 0)
        let utility = try #require(cnv_dispatch_queue_create("utility", utilityAttributes))
        #expect(onQueues(utility) == [false, false, false, true])
        cnv_dispatch_set_target_queue(utility, nil)
        #expect(onQueues(utility) == [false, true, false, false])
        #expect(CObject.queue(utility, "test").band == .utility)
        [plain, utility].forEach { cnv_dispatch_release($0) }
    }

    @Test func queueMadeWithATargetTrapsWhenActive() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = cnv_dispatch_queue_create_with_target("with-target", nil, nil)
            cnv_dispatch_set_target_queue(queue, cnv_dispatch_get_global_queue(0, 0))
        }
        #expect(Self.message(result).contains("setTarget(queue:) called on active queue 'with-target'"))
    }

    @Test func queueMadeInactiveTrapsOnceActivated() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = cnv_dispatch_queue_create("made-inactive", cnv_dispatch_queue_attr_make_initially_inactive(nil))
            cnv_dispatch_set_target_queue(queue, cnv_dispatch_get_global_queue(0, 0))   // allowed while inactive
            cnv_dispatch_activate(queue)
            cnv_dispatch_set_target_queue(queue, cnv_dispatch_get_global_queue(0, 0))
        }
        #expect(Self.message(result).contains("setTarget(queue:) called on active queue 'made-inactive'"))
    }

    @Test func retargetingAQueueOntoItselfTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = cnv_dispatch_queue_create("self-target", nil)
            cnv_dispatch_set_target_queue(queue, queue)
        }
        #expect(Self.message(result).contains("dispatch_set_target_queue would make queue 'self-target' target itself"))
    }
}
