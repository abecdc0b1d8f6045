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

#if canImport(Glibc)
import Glibc
#endif

/// The pool's state as text, for the stall reports of Conveyor's tests and test programs
/// (`PoolTestingHooks.stateDescription`).
extension WorkerPool {
    var stateDescription: String {
        var lines: [String] = []
        lines.append("pool: \(liveThreads.load(ordering: .relaxed)) of \(maxThreads) threads, "
                     + "running \(running.load(ordering: .relaxed)) (target \(target): credit \(credit.load(ordering: .relaxed)), "
                     + "overcommit \(overcommitCredit.load(ordering: .relaxed)), urgent \(urgentCredit.load(ordering: .relaxed))), searching \(searching.load(ordering: .relaxed)), "
                     + "parked \(parkedThreads.load(ordering: .relaxed)), LIFO watcher \(lifoWatcher.load(ordering: .relaxed))")
        lines.append("reserve: \(reserveThreads.load(ordering: .relaxed)) alive (limit \(reserveThreadLimit)), "
                     + "\(blockedReserveThreads.load(ordering: .relaxed)) blocked, \(reserveThreadsBehind.load(ordering: .relaxed)) behind, "
                     + "\(stallAllowance.load(ordering: .relaxed)) past the ceiling (\(stallBreaks.load(ordering: .relaxed)) stalls broken)")
        let bands = QoSBand.allCases.map { band in
            "\(band): \(injectionQueue(Int(band.rawValue)) { $0.isEmpty } ? "empty" : "holds work")"
        }
        lines.append("shared queues: " + bands.joined(separator: ", "))
        lines.append("hand-off queue: \(handedOff.isEmpty ? "empty" : handedOff.holdsPosts ? "holds posts" : "holds only jobs pushed behind"); "
                     + "work visible: \(hasVisibleWork(includingLIFO: true))")
        let count = slotCount.load(ordering: .acquiring)
        // The slots' flags under the lock, if it comes free within a second: a report of
        // a hang must not hang on a lock held for ever (it says so instead).
        var flags: [(thread: Bool, parked: Bool, reserve: Bool)]?
        let giveUp = Clock.monotonicNanoseconds() + 1_000_000_000
        while flags == nil && Clock.monotonicNanoseconds() < giveUp {
            guard lock.tryLock() else {
                sched_yield()
                continue
            }
            flags = (0..<count).map { index in
                let worker = worker(at: index)
                return (thread: worker.hasThread, parked: worker.isParked, reserve: worker.isReserve)
            }
            lock.unlock()
        }
        if flags == nil { lines.append("(the pool's lock stayed held for a second: threads and parked workers not shown)") }
        for index in 0..<count {
            let worker = worker(at: index)
            let flag = flags?[index]
            var state: [String] = [flag.map { $0.thread ? "tid \(worker.threadID.load(ordering: .relaxed))" : "no thread" } ?? "tid \(worker.threadID.load(ordering: .relaxed))?"]
            if flag?.reserve == true { state.append("reserve") }
            if flag?.parked == true { state.append("parked") }
            if worker.inJob.load(ordering: .relaxed) { state.append("in a job") }
            if worker.inConveyorWait.load(ordering: .relaxed) { state.append("in a Conveyor wait") }
            state.append("\(worker.progress.load(ordering: .relaxed)) jobs started")
            if worker.lifoSlot.load(ordering: .relaxed) != nil { state.append("LIFO slot full") }
            let ring = worker.local.count
            if ring > 0 { state.append("\(ring) in its ring") }
            lines.append("  worker \(index): " + state.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
