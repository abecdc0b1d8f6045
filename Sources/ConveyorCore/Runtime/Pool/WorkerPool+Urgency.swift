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

// Work more important than everything running. The pool wants one runnable worker per CPU,
// so work of a more important band queued while every worker computes less important jobs
// waited until one of those jobs returned: a user-initiated block behind default blocks of
// 50 ms started after 45 ms, a default block behind background jobs after the longest of
// them. libdispatch on Linux gives each QoS class threads of its own (up to the CPU count
// each) and started it within 0.04-2.6 ms. Here the pool wants one more runnable worker
// for each band more important than the least important job running, while work of that
// band runs or waits (`urgentCredit`, part of `target`): that band is not kept waiting by
// the less important work, whose threads stay (the kernel's nice values then share the
// CPUs, `QoSBand.niceValue`). At most one thread per band: a second user-initiated block
// waits for the first, where libdispatch may run a CPU count of them.
//
// The credit is raised by the poster that finds its band more important than every job
// running (`notifyWorkAvailable`'s busy branch), and set afresh from what runs and waits
// by the watchdog's tick and by a worker that ran work above the least important band
// (`refreshUrgentCredit`); the watchdog drops it when no work is queued. A raise and a
// refresh that race may leave the credit one short: the watchdog is poked and its next
// tick (within `Watchdog.intervalNanoseconds`) sets it again and starts the worker. Too
// high a credit costs one extra runnable thread until the next refresh, never a lost job.
extension WorkerPool {
    /// Whether a post of `band` may outrank every running job, as a cheap look first: bands
    /// above the default one always may; the default and utility bands only once work of a
    /// less important band ran in this process (`lessImportantThanDefaultRan`); background
    /// never.
    @inline(__always)
    func mayOutrankRunningWork(_ band: QoSBand) -> Bool {
        band.rawValue < QoSBand.default.rawValue
            || (band != .background && lessImportantThanDefaultRan.load(ordering: .relaxed))
    }

    /// A job of `band` was queued while every wanted worker runs: if `band` is more
    /// important than every job running (workers in a Conveyor wait do not count: the pool
    /// already runs another thread for each), raises the credit to what the running work
    /// and `band` want and returns true, so that the caller wakes or starts a worker for
    /// it (`wakeOrStartWorker(urgentBand:)`): one woken the usual way could take a less
    /// important job first (an aging turn), and with every worker inside such jobs again
    /// the raised target would be met without anyone running `band`.
    ///
    /// The look stops at the first worker running work as important as `band` or more: in
    /// a busy pool of one band, that is the first worker looked at.
    func raiseUrgentCredit(for band: QoSBand) -> Bool {
        var runningMask: UInt8 = 0
        let count = slotCount.load(ordering: .acquiring)
        for index in 0..<count {
            let runningBand = workerRef(at: index)._withUnsafeGuaranteedRef { worker -> UInt8? in
                guard worker.inJob.load(ordering: .relaxed), !worker.inConveyorWait.load(ordering: .relaxed) else { return nil }
                return worker.publishedBand.load(ordering: .relaxed)
            }
            guard let runningBand else { continue }
            if runningBand <= band.rawValue { return false }
            runningMask |= 1 << runningBand
        }
        guard runningMask != 0 else { return false }
        let wanted = urgentCreditWanted(runningMask: runningMask, waitingMask: waitingBandMask | 1 << band.rawValue)
        var current = urgentCredit.load(ordering: .relaxed)
        while current < wanted {
            let (exchanged, original) = urgentCredit.compareExchange(expected: current, desired: wanted, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
        return true
    }

    /// The job a worker woken for urgent work takes first (`Worker.urgentBand`): one of
    /// that band or a more important one from the bands' shared queues, or nil if another
    /// worker took it (this worker then looks for work as usual).
    @inline(__always)
    func takeUrgentJob(for worker: Worker) -> Job? {
        guard worker.urgentBand.load(ordering: .relaxed) != Worker.noUrgentBand else { return nil }
        let band = worker.urgentBand.exchange(Worker.noUrgentBand, ordering: .relaxed)
        guard band != Worker.noUrgentBand else { return nil }
        worker.releaseHeldLeaves()   // before any job from elsewhere (`Worker.leaveLater`)
        return popMostImportant(before: Int(band) + 1, for: worker)
    }

    /// The most important band whose shared queue holds work (a racy look).
    var mostImportantWaitingBand: QoSBand? {
        QoSBand.allCases.first { !injectionQueue(Int($0.rawValue), { $0.isEmpty }) }
    }

    /// Sets the credit from the jobs running now and the bands' shared queues: called by
    /// the watchdog's tick, and by a worker after a job more important than the least
    /// important one running (`urgentFloor`) while the credit is raised.
    func refreshUrgentCredit() {
        var runningMask: UInt8 = 0
        let count = slotCount.load(ordering: .acquiring)
        for index in 0..<count {
            workerRef(at: index)._withUnsafeGuaranteedRef { worker in
                if worker.inJob.load(ordering: .relaxed), !worker.inConveyorWait.load(ordering: .relaxed) {
                    runningMask |= 1 << worker.publishedBand.load(ordering: .relaxed)
                }
            }
        }
        urgentCredit.store(urgentCreditWanted(runningMask: runningMask, waitingMask: waitingBandMask), ordering: .relaxed)
    }

    /// Whether `worker`, which just ran a job of `band`, should set the credit afresh: the
    /// credit is raised and that job was above its floor (the credit's holders refresh it
    /// as they go, not every worker after every job).
    @inline(__always)
    func shouldRefreshUrgentCredit(after band: QoSBand) -> Bool {
        urgentCredit.load(ordering: .relaxed) != 0 && band.rawValue < urgentFloor.load(ordering: .relaxed)
    }

    /// The bands whose shared queue holds work now, one bit per band (a racy look).
    private var waitingBandMask: UInt8 {
        var mask: UInt8 = 0
        for band in QoSBand.allCases where !injectionQueue(Int(band.rawValue), { $0.isEmpty }) {
            mask |= 1 << band.rawValue
        }
        return mask
    }

    /// The credit wanted: how many bands more important than the least important running
    /// band run or wait (one thread each), within the thread cap; records that band as the
    /// floor.
    private func urgentCreditWanted(runningMask: UInt8, waitingMask: UInt8) -> Int {
        guard runningMask != 0 else { return 0 }
        let floor = UInt8(7 - runningMask.leadingZeroBitCount)   // the least important band running
        urgentFloor.store(floor, ordering: .relaxed)
        let above = (runningMask | waitingMask) & ((1 << floor) - 1)
        return min(above.nonzeroBitCount, max(0, maxThreads - cpuCount))
    }
}
