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

// Work more important than the work running. The pool wants one runnable worker per CPU,
// so work of a more important band queued while every worker computed less important jobs
// waited until one of those jobs returned: a user-initiated block posted beside default
// blocks of 20 ms started a median 12 ms later (45 ms beside blocks of 50 ms), and a
// default block behind background jobs that never return, never. libdispatch on Linux
// gives each QoS class threads of its own (up to the CPU count each) and starts it within
// about 0.01-0.07 ms. Here the pool wants one more runnable worker for each band more
// important than the least important job running (the floor), while work of that band
// runs or waits (`urgentCredit`, part of `target`): such a band is not kept waiting by
// less important work, whose threads stay (the kernel's nice values then share the CPUs,
// `QoSBand.niceValue`). At most one thread per band: a second user-initiated block waits
// for the first, where libdispatch may run as many as there are CPUs.
//
// Who acts:
// - A post that finds no worker running its band while a less important one runs, with
//   every wanted worker running, raises the credit and wakes a worker for that band
//   (`wakeOrStartWorker(urgentBand:)`), which takes a job of that band first
//   (`takeUrgentJob`): a worker woken the usual way could take an aging turn of the less
//   important band, and with every worker inside such jobs again, the raised target would
//   be met without anyone running the band.
// - The watchdog's tick sets the credit afresh and wakes a worker for a band that still
//   waits with nobody running it (a raise that a refresh undid, a wake-up that another
//   worker's pop beat), at most one such wake-up every two ticks; with no work queued it
//   sets the credit from what runs.
// - A worker that ran work above the floor sets the credit afresh after its job (at most
//   once per `urgentRefreshNanoseconds` in the pool), so that the extra worker retires
//   (`hasSurplusWorkers`) once its band's work is done.
// What a refresh counts as a band's work: jobs running, the bands' shared queues, the
// hand-off queue's next job, and the LIFO slot and ring of a worker between two jobs
// (its posts, at its last job's band). Posts that a running job left on its own ring are
// not seen: such a job's band runs, so it counts, and its posts run after it.
// Races between a raise and a refresh leave the credit one off until the next refresh or
// tick (within `Watchdog.intervalNanoseconds`): one thread too many meanwhile, or a job
// that waits for that tick.
extension WorkerPool {
    /// How often at most the workers that ran work above the floor set the urgent credit
    /// afresh (pool-wide): each refresh reads every worker's line.
    static let urgentRefreshNanoseconds: UInt64 = 1_000_000

    /// Whether a post of `band` may find its band not running while a less important one
    /// runs, as a cheap look first: bands above the default one always may; the default
    /// and utility bands only once work of a less important band ran in this process
    /// (`lessImportantThanDefaultRan`); background never.
    @inline(__always)
    func mayOutrankRunningWork(_ band: QoSBand) -> Bool {
        band.rawValue < QoSBand.default.rawValue
            || (band != .background && lessImportantThanDefaultRan.load(ordering: .relaxed))
    }

    /// A job of `band` was queued while every wanted worker runs: if no worker runs a job
    /// of `band` and one runs a less important job (workers in a Conveyor wait do not
    /// count: the pool already runs another thread for each), raises the credit to what
    /// the running and waiting work wants and returns true, so that the caller wakes or
    /// starts a worker for `band` (`wakeOrStartWorker(urgentBand:)`).
    ///
    /// The look stops at the first worker running a job of `band`: in a busy pool of one
    /// band, that is the first worker looked at.
    func raiseUrgentCredit(for band: QoSBand) -> Bool {
        // Some running job must be less important than `band`.
        guard let (running, waiting) = bandMasks(stoppingAtRunning: band.rawValue),
              running >> (band.rawValue + 1) != 0 else { return false }
        setUrgentCredit(urgentCreditWanted(runningMask: running, waitingMask: waiting | 1 << band.rawValue), raiseOnly: true)
        return true
    }

    /// Sets the credit from the work running and waiting now: the watchdog's tick, and a
    /// worker after a job above the floor (`shouldRefreshUrgentCredit`).
    func refreshUrgentCredit() {
        guard let (running, waiting) = bandMasks(stoppingAtRunning: nil) else { return }
        setUrgentCredit(urgentCreditWanted(runningMask: running, waitingMask: waiting), raiseOnly: false)
    }

    /// Whether `worker`, which just ran a job of `band`, should set the credit afresh: the
    /// credit is raised, that job was above its floor, and no worker did so in the last
    /// `urgentRefreshNanoseconds` (the clock is read only when the first two hold).
    @inline(__always)
    func shouldRefreshUrgentCredit(after band: QoSBand) -> Bool {
        guard urgentCredit.load(ordering: .relaxed) != 0, band.rawValue < urgentFloor.load(ordering: .relaxed) else { return false }
        let now = Clock.monotonicNanoseconds()
        let last = lastUrgentRefresh.load(ordering: .relaxed)
        guard now &- last >= Self.urgentRefreshNanoseconds else { return false }
        return lastUrgentRefresh.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }

    /// The watchdog's tick: a worker for the most important band that waits with nobody
    /// running it while a less important band runs, unless the tick before woke one.
    func wakeWorkerForUnservedUrgentWork() {
        // A worker woken at the last tick may not have run yet (a busy machine): one
        // wake-up per two ticks bounds the threads this adds.
        if urgentWakeLastTick {
            urgentWakeLastTick = false
            return
        }
        let waiting = sharedWaitingBandMask
        for band in QoSBand.allCases where waiting & (1 << band.rawValue) != 0 && mayOutrankRunningWork(band) {
            if raiseUrgentCredit(for: band) {
                urgentWakeLastTick = true
                wakeOrStartWorker(urgentBand: band)
                return
            }
        }
    }

    /// The job a worker woken for urgent work takes first (`Worker.urgentBand`): one of
    /// that band, else of a more important one, from the bands' shared queues; nil if
    /// others took them (this worker then looks for work as usual).
    @inline(__always)
    func takeUrgentJob(for worker: Worker) -> Job? {
        guard worker.urgentBand.load(ordering: .relaxed) != Worker.noUrgentBand else { return nil }
        let band = Int(worker.urgentBand.exchange(Worker.noUrgentBand, ordering: .relaxed))
        guard band != Int(Worker.noUrgentBand) else { return nil }
        worker.releaseHeldLeaves()   // before any job from elsewhere (`Worker.leaveLater`)
        return popAlone(fromBand: band, for: worker) ?? popMostImportant(before: band, for: worker)
    }

    /// The bands running and waiting now, one bit per band: each worker's running job (not
    /// while it waits in a Conveyor wait) or, between jobs, its last job's band if its LIFO
    /// slot or ring holds its posts; then the bands' shared queues and the hand-off queue
    /// (`sharedWaitingBandMask`). Nil, at once, when a worker runs a job of band `stop`.
    private func bandMasks(stoppingAtRunning stop: UInt8?) -> (running: UInt8, waiting: UInt8)? {
        var running: UInt8 = 0
        var waiting: UInt8 = 0
        let count = slotCount.load(ordering: .acquiring)
        for index in 0..<count {
            let runningBand = workerRef(at: index)._withUnsafeGuaranteedRef { worker -> UInt8? in
                let band = worker.publishedBand.load(ordering: .relaxed)
                if worker.inJob.load(ordering: .relaxed) {
                    return worker.inConveyorWait.load(ordering: .relaxed) ? nil : band
                }
                if worker.lifoSlot.load(ordering: .relaxed) != nil || !worker.local.isEmpty { waiting |= 1 << band }
                return nil
            }
            guard let runningBand else { continue }
            if runningBand == stop { return nil }
            running |= 1 << runningBand
        }
        return (running, waiting | sharedWaitingBandMask)
    }

    /// The bands whose shared queue holds work, and the band of the hand-off queue's
    /// next job, one bit per band (a racy look).
    private var sharedWaitingBandMask: UInt8 {
        var mask: UInt8 = 0
        for band in QoSBand.allCases where !injectionQueue(Int(band.rawValue), { $0.isEmpty }) {
            mask |= 1 << band.rawValue
        }
        if !handedOff.isEmpty { mask |= 1 << UInt8(clamping: min(handedOff.nextBand, QoSBand.allCases.count - 1)) }
        return mask
    }

    /// The credit wanted: how many bands more important than the least important running
    /// band (the floor, recorded in `urgentFloor`) run or wait, one thread each, within the
    /// thread cap.
    private func urgentCreditWanted(runningMask: UInt8, waitingMask: UInt8) -> Int {
        guard runningMask != 0 else {
            urgentFloor.store(QoSBand.background.rawValue, ordering: .relaxed)
            return 0
        }
        let floor = UInt8(7 - runningMask.leadingZeroBitCount)   // the least important band running
        if urgentFloor.load(ordering: .relaxed) != floor { urgentFloor.store(floor, ordering: .relaxed) }
        let above = (runningMask | waitingMask) & ((1 << floor) - 1)
        return min(above.nonzeroBitCount, max(0, maxThreads - cpuCount))
    }

    /// Stores `wanted` as the credit (with `raiseOnly`, only if higher), writing the line
    /// only on a change.
    private func setUrgentCredit(_ wanted: Int, raiseOnly: Bool) {
        var current = urgentCredit.load(ordering: .relaxed)
        while current != wanted && (!raiseOnly || current < wanted) {
            let (exchanged, original) = urgentCredit.compareExchange(expected: current, desired: wanted, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
