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

@testable import ConveyorCore
import CConveyor
import Synchronization
import Testing

/// A worker that runs jobs of one group back to back holds their leaves and gives them in
/// one step (`Worker.leaveLater`); these check that the hold never changes what a waiter
/// sees.
@Suite struct HeldGroupLeavesTests {
    /// Bursts submitted from outside the pool, as `dispatch_group_async` loops do: every
    /// burst empties its group (a hold left behind when the workers run out of work would
    /// keep the group non-empty for ever).
    @Test func burstsFromOutsideEmptyTheirGroup() {
        let ran = Counter()
        for round in 1...20 {
            let group = DispatchGroup()
            for _ in 0..<2_000 {
                DispatchQueue.global().async(group: group) { ran.increment() }
            }
            guard group.wait(timeout: deadline()) == .success else {
                Issue.record("round \(round): the group did not empty (\(group.currentCount) tasks in)")
                return
            }
            #expect(group.currentCount == 0)
            #expect(ran.current == round * 2_000)
        }
    }

    /// Jobs of a group, then on the same worker a job outside it that waits for the group:
    /// the held leaves must be given before that job runs, or it waits on leaves that its
    /// own thread holds (its wait times out instead of succeeding).
    @Test func aJobOutsideTheGroupSeesTheGroupEmpty() {
        waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: nil)
    }

    /// The same with the waiter in another group: holds are per group.
    @Test func aJobOfAnotherGroupSeesTheFirstGroupEmpty() {
        let other = DispatchGroup()
        waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: other)
        #expect(other.wait(timeout: deadline()) == .success)
    }

    private func waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: DispatchGroup?) {
        let results = TestLog<DispatchTimeoutResult>()
        let finished = DispatchSemaphore(value: 0)
        let rounds = 30
        for _ in 0..<rounds {
            // Submitted from inside a pool job, the jobs go to that worker's own ring, first
            // in, first out, so the waiter most often runs right after the group's jobs on
            // the worker that holds their leaves.
            DispatchQueue.global().async {
                let group = DispatchGroup()
                for _ in 0..<16 {
                    DispatchQueue.global().async(group: group) {}
                }
                DispatchQueue.global().async(group: waiterGroup) {
                    results.append(group.wait(timeout: deadline()))
                    finished.signal()
                }
            }
        }
        for _ in 0..<rounds { #expect(finished.wait(timeout: deadline(seconds: 120)) == .success) }
        let timedOut = results.values.filter { $0 != .success }.count
        #expect(results.count == rounds)
        #expect(timedOut == 0, "\(timedOut) of \(rounds) waits timed out")
    }

    /// The chapter's "Waiting on Groups of Queued Tasks" from a plain thread: a fan-out to
    /// a global queue, then a notify on a serial queue (issue 25, finding 1). The worker
    /// that ran the last jobs gave their held leaves just before it searched, and the
    /// notify's queue drain went to that worker's LIFO slot, where nobody looked: stuck in
    /// the first round on every run before the fix.
    @Test(arguments: [false, true])
    func notifyOnAQueueRunsAfterAFanOutFromAPlainThread(concurrentTarget: Bool) {
        var random = SplitMix64(seed: concurrentTarget ? 25 : 1)
        let queue = concurrentTarget
            ? DispatchQueue(label: "held-leaves.notify", attributes: .concurrent)
            : DispatchQueue(label: "held-leaves.notify")
        for round in 1...300 {
            let group = DispatchGroup()
            let jobs = 1 + random.below(64)
            let ran = Counter()
            for _ in 0..<jobs { DispatchQueue.global().async(group: group) { ran.increment() } }
            let notified = DispatchSemaphore(value: 0)
            let sawAll = Counter()
            group.notify(queue: queue) {
                if ran.current == jobs { sawAll.increment() }
                notified.signal()
            }
            guard notified.wait(timeout: deadline(seconds: 20)) == .success else {
                Issue.record("round \(round) (\(jobs) jobs): the notify never ran; \(group.currentCount) tasks in the group")
                return
            }
            #expect(sawAll.current == 1, "round \(round): the notify ran before every job")
        }
    }

    /// Held leaves given just before a worker runs a long job of its own ring: the notify
    /// they make runnable must not wait for that job while another CPU is free (it was put
    /// in the worker's LIFO slot, unseen until the job ended or a watcher looked). The long
    /// job spins, not a Conveyor wait (which would hand the slot to the pool).
    @Test func aNotifyMadeRunnableBeforeALongJobDoesNotWaitForIt() {
        // One round at a time: rounds spinning side by side would hold every CPU of a
        // 2-CPU machine, and the notifies could then rightly wait for them.
        let rounds = 20
        let queue = DispatchQueue(label: "held-leaves.before-long-job")
        for round in 1...rounds {
            let done = DispatchSemaphore(value: 0)
            let notified = Counter()
            let sawNotify = Counter()
            DispatchQueue.global().async {
                let group = DispatchGroup()
                for _ in 0..<16 { DispatchQueue.global().async(group: group) {} }
                group.notify(queue: queue) { notified.increment() }
                // Not in the group: the hold is given right before it runs.
                DispatchQueue.global().async {
                    let end = DispatchTime.now() + .seconds(20)
                    while notified.current == 0 && DispatchTime.now() < end { cnv_cpu_relax() }
                    if notified.current == 1 { sawNotify.increment() }
                    done.signal()
                }
            }
            guard done.wait(timeout: deadline(seconds: 60)) == .success else {
                Issue.record("round \(round): the long job never ended")
                return
            }
            #expect(sawNotify.current == 1, "round \(round): the notify waited for the long job")
        }
    }
}
