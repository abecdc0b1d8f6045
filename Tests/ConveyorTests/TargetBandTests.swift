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
import Synchronization
import Testing

/// Which band a queue's work runs at once the queue is retargeted, and that more important
/// work is not left behind default work in a worker's ring. Found by libdispatch's own
/// `dispatch_priority2` test under the drop-in library: four queues retargeted to the
/// BACKGROUND, LOW, DEFAULT and HIGH global queues; the queue kept the band it was made
/// with, and HIGH's work, submitted from a worker, waited in that worker's ring behind
/// DEFAULT's until DEFAULT's ran out.
///
/// A job's band shows as its thread's nice value (background 10, utility 2, default 0,
/// and below 0 above it where the process may lower it), which a worker always sets
/// before a job that asks for a higher one.
@Suite struct TargetBandTests {
    /// A queue made without a QoS of its own runs at the band of the global queue it was
    /// retargeted to while inactive, serial or concurrent (it ran at DEFAULT's before).
    @Test(arguments: [false, true])
    func aQueueRetargetedWhileInactiveRunsAtItsNewGlobalQueuesBand(concurrent: Bool) {
        let queue = DispatchQueue(label: "retargeted", attributes: concurrent ? [.concurrent, .initiallyInactive] : .initiallyInactive)
        queue.setTarget(queue: .global(qos: .background))
        queue.activate()
        #expect(niceOfABlock(on: queue) == QoSBand.background.niceValue)
        // And back: the same kind of queue left on DEFAULT's global queue runs at nice 0.
        let plain = DispatchQueue(label: "plain", attributes: concurrent ? .concurrent : [])
        #expect(niceOfABlock(on: plain) == QoSBand.default.niceValue)
    }

    /// The C API retargets an active queue in order with its work: items queued before the
    /// retarget ran (here while the queue was suspended, as `dispatch_priority2` does) run
    /// at the new global queue's band too.
    @Test(arguments: [false, true])
    func itemsQueuedBeforeAnInOrderRetargetRunAtTheNewBand(concurrent: Bool) throws {
        let handle = try #require(cnv_dispatch_queue_create("retargeted-in-order", concurrent ? CQueueAttributes(concurrent: true).handle : nil))
        defer { cnv_dispatch_release(handle) }
        cnv_dispatch_suspend(handle)
        cnv_dispatch_set_target_queue(handle, cnv_dispatch_get_global_queue(-2, 0))   // LOW: utility
        let queue = CObject.queue(handle, "test")
        let seen = TestLog<Int32>()   // not Mutex: ThreadSanitizer misses its kernel hand-off
        let group = DispatchGroup()
        for _ in 0..<8 {
            queue.async(group: group) { seen.append(ThreadInfo.nice) }
        }
        cnv_dispatch_resume(handle)
        #expect(group.wait(timeout: deadline()) == .success)
        #expect(seen.values == Array(repeating: QoSBand.utility.niceValue, count: 8))
    }

    /// Work more important than the default band, submitted from a job whose worker's ring
    /// holds default work, starts before that work has all started: it no longer queues
    /// behind it in the ring. (Before, it started after the last of the default jobs, in
    /// every run.) The default jobs each spin until it starts or for 5 ms, so even a pool
    /// that steals them runs at most a few per worker before one of its workers reaches it.
    @Test func moreImportantWorkIsNotQueuedBehindDefaultWorkInARing() {
        let defaultJobs = 200
        let started = Atomic<Int>(0)
        let startedAtPost = Atomic<Int>(-1)
        let importantStartedAfter = Atomic<Int>(-1)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for _ in 0..<defaultJobs {
                DispatchQueue.global().async(group: group) {
                    started.add(1, ordering: .relaxed)
                    let end = DispatchTime.now() + .milliseconds(5)
                    while importantStartedAfter.load(ordering: .relaxed) < 0 && DispatchTime.now() < end {}
                }
            }
            startedAtPost.store(started.load(ordering: .relaxed), ordering: .relaxed)
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
                importantStartedAfter.store(started.load(ordering: .relaxed), ordering: .relaxed)
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        // Each worker starts at most a few default jobs after it was posted, whatever the
        // machine does: a worker that finishes one takes it next (its ring holds the rest).
        // Counted from its post, not from the first default job: while a slow poster (a
        // sanitizer, a descheduled thread) was still posting, other workers stole and ran
        // default jobs, which is fine (the bug this catches started ~200 first).
        let bound = min(defaultJobs / 2, 4 * ThreadInfo.cpuCount)
        let after = importantStartedAfter.load(ordering: .relaxed)
        let atPost = startedAtPost.load(ordering: .relaxed)
        #expect(after >= 0 && atPost >= 0 && after - atPost < bound,
                "the user-initiated job started after \(after) of \(defaultJobs) default jobs, \(atPost) of them started before it was posted (bound \(bound))")
    }
}
