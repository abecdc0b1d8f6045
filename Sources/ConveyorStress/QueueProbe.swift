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

import Conveyor
import Synchronization

/// The checks attached to one queue of a stress round.
///
/// Every submission is counted (`expected`) and every execution (`executed`), so a lost or
/// doubled task shows at the end of the round. A serial queue's tasks each take the
/// in-flight counters of the queue and of its serial ancestors (`exclusive`), and must
/// find them at zero; tasks carry a sequence number per submitter that must increase
/// (FIFO). A concurrent queue's barriers must find nothing else running and exactly the
/// earlier (not cancelled) tasks of their submitter done.
final class QueueProbe: Sendable {
    /// Who submits: the round's producer thread (0), each producer thread on the run's
    /// shared queues (2 + producer), and tasks of each serial "feeder" queue of a round
    /// (`feederBase` + its index in the round).
    static let feederBase = 2 + 64
    static let maxSubmitters = feederBase + 8

    let name: String
    let isSerial: Bool
    let expected = Atomic<Int>(0)
    let executed = Atomic<Int>(0)
    /// Completions of tasks with a place in their queue's order (all but asyncAfter's).
    let completed = Atomic<Int>(0)
    private let ordered = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    private let barrierRunning = Atomic<Bool>(false)
    /// The in-flight counters a task of this queue holds: its own, and its serial ancestors'.
    let exclusive: [QueueProbe]
    private let sequences: [SequenceSlot]
    let ledger: Ledger

    init(name: String, isSerial: Bool, serialAncestors: [QueueProbe], ledger: Ledger) {
        self.name = name
        self.isSerial = isSerial
        self.ledger = ledger
        self.exclusive = serialAncestors
        sequences = (0..<Self.maxSubmitters).map { _ in SequenceSlot() }
    }

    /// Counts a submission that must run and returns its sequence number for `submitter`.
    func submit(from submitter: Int) -> Int {
        expected.add(1, ordering: .relaxed)
        ordered.add(1, ordering: .relaxed)
        return sequences[submitter].next.add(1, ordering: .relaxed).oldValue
    }

    /// Submissions so far that have a place in the queue's order.
    var orderedSubmitted: Int { ordered.load(ordering: .relaxed) }

    /// Counts a timed submission (asyncAfter): it must run, in no particular order.
    func submitTimed() { expected.add(1, ordering: .relaxed) }

    /// The body of an ordinary task: `sequence` nil for timed work (no FIFO promise).
    func run(submitter: Int, sequence: Int?, work: () -> Void = {}) {
        enter(barrier: false)
        if isSerial, let sequence {
            let last = sequences[submitter].last.exchange(sequence, ordering: .relaxed)
            ledger.check(last < sequence, "\(name): FIFO broken for submitter \(submitter): \(sequence) ran after \(last)")
        }
        work()
        leave(barrier: false, ordered: sequence != nil)
    }

    /// The body of a barrier on a concurrent queue; `earlier` counts the tasks submitted
    /// to this queue before it (all from one submitter).
    func runBarrier(earlier: Int) {
        enter(barrier: true)
        let done = completed.load(ordering: .acquiring)
        ledger.check(done == earlier, "\(name): barrier saw \(done) tasks done, expected exactly \(earlier)")
        leave(barrier: true, ordered: true)
    }

    private func enter(barrier: Bool) {
        executed.add(1, ordering: .relaxed)
        ledger.taskRan()
        let mine = inFlight.add(1, ordering: .acquiringAndReleasing).newValue
        if isSerial || barrier {
            ledger.check(mine == 1, "\(name): \(mine) tasks overlapped on a serial queue or barrier")
        }
        if barrier { barrierRunning.store(true, ordering: .releasing) }
        if !barrier && !isSerial {
            ledger.check(!barrierRunning.load(ordering: .acquiring), "\(name): a task ran during a barrier")
        }
        for ancestor in exclusive {
            let n = ancestor.inFlight.add(1, ordering: .acquiringAndReleasing).newValue
            ledger.check(n == 1, "\(name): ran while its serial target \(ancestor.name) was busy (\(n))")
        }
    }

    private func leave(barrier: Bool, ordered: Bool) {
        for ancestor in exclusive { ancestor.inFlight.subtract(1, ordering: .acquiringAndReleasing) }
        if barrier { barrierRunning.store(false, ordering: .releasing) }
        if ordered { completed.add(1, ordering: .releasing) }
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// After the round: everything submitted ran exactly once.
    func verifyCounts() {
        let e = expected.load(ordering: .acquiring), x = executed.load(ordering: .acquiring)
        ledger.check(e == x, "\(name): \(e) tasks submitted but \(x) ran")
    }
}

/// One submitter's sequence numbers on one queue: the next to hand out, the last that ran.
final class SequenceSlot: Sendable {
    let next = Atomic<Int>(0)
    let last = Atomic<Int>(-1)
}
