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
import Synchronization

/// What the watchdog remembers of one worker between two ticks.
struct WatchedWorker {
    /// The worker's started-job count at the last tick.
    var progress: UInt64 = .max
    /// Counted as blocked where Conveyor cannot see.
    var blocked = false
    /// Ticks in a row the kernel showed the thread running while counted as blocked.
    var runningTicks = 0
    /// Ticks in a row the kernel showed the thread asleep inside the same job.
    var sleepingTicks = 0
    /// The worker's ring's push count at the last tick (`LocalRunQueue.tailPosition`).
    var ringPushes: UInt32 = 0
}

extension WorkerPool {
    /// Watchdog tick: finds the workers blocked where Conveyor cannot see and sets the
    /// credit (extra runnable workers) to their number, hands the LIFO jobs of workers
    /// still inside the job of the previous tick to the pool, sets the urgent credit
    /// afresh and wakes a worker for waiting work of a band nobody runs while a less
    /// important one runs
    /// (`WorkerPool+Urgency.swift`), then wakes or starts a worker if work is waiting, and
    /// at the cap starts a reserve thread for work that stuck workers hold or, past the
    /// reserve's ceiling, for a stalled pool (`breakStall`).
    ///
    /// Invariant (issue 11, finding 2): a thread is added only for a worker that is really
    /// blocked, and taken away when it returns. "Blocked" is the kernel's view of the
    /// thread: inside the same job as at the last tick, not in a Conveyor wait (already
    /// compensated), and not in state 'R' (running or runnable) in /proc/self/task/<tid>/stat
    /// at two ticks in a row. A long CPU-bound job is 'R' and never adds a thread, even if
    /// one look catches it in a short sleep. A blocked worker stops counting
    /// when it starts another job, or shows 'R' on two ticks in a row (a single 'R' is
    /// a short wake-up between two sleeps, as in a polling loop). The credit is set afresh
    /// each tick, so surplus workers retire (`hasSurplusWorkers`) once blockers return.
    func watchTick(_ watched: inout [WatchedWorker]) {
        let count = slotCount.load(ordering: .acquiring)
        while watched.count < count { watched.append(WatchedWorker()) }
        var blockedCount = 0
        // At the cap no thread may start to steal what a worker stuck inside one job
        // holds: its ring goes to the hand-off queue too, and a reserve thread starts.
        let atCap = liveThreads.load(ordering: .relaxed) >= maxThreads
        var handedOffStuckWork = false
        // Workers inside the job of the previous tick, not in a Conveyor wait: when every
        // running worker is one, none will take handed-off work soon.
        var stuckWorkers = 0
        var totalProgress: UInt64 = 0
        for index in 0..<count {
            let worker = worker(at: index)
            let progress = worker.progress.load(ordering: .relaxed)
            totalProgress &+= progress
            var seen = watched[index]
            defer { watched[index] = seen }
            let sameJob = progress == seen.progress && worker.inJob.load(ordering: .relaxed)
            seen.progress = progress
            let ringPushes = worker.local.tailPosition
            let postedSinceLastTick = ringPushes != seen.ringPushes
            seen.ringPushes = ringPushes
            guard sameJob, !worker.inConveyorWait.load(ordering: .relaxed) else {
                seen.blocked = false
                seen.runningTicks = 0
                seen.sleepingTicks = 0
                continue
            }
            stuckWorkers += 1
            // The owner is still inside the job it ran at the previous tick (about 10 ms
            // ago), blocked or not: hand its LIFO job (filled at any time since) to the
            // pool, whether or not a parked worker watches the slots. That watcher
            // (`lifoWatchNanoseconds`) rescues it sooner, but there may be none: the
            // tester's busy poster posted a drain and stayed runnable while the one other
            // worker blocked, and nothing woke a worker for the slot (`willBlock` and this
            // tick's wake-up look at shared queues only). A long job's fresh post so moves
            // to another core, a cost only.
            if worker.lifoSlot.load(ordering: .relaxed) != nil {
                handOffSlot(of: worker)
                handedOffStuckWork = true
            }
            if atCap && !worker.local.isEmpty {
                handOffRing(of: worker, through: watchdog.scratchRing, ahead: !postedSinceLastTick)
                handedOffStuckWork = true
            }
            let tid = worker.threadID.load(ordering: .relaxed)
            let state = tid == 0 ? UInt8(0) : UInt8(bitPattern: cnv_thread_run_state(tid))
            if state == UInt8(ascii: "R") {
                seen.runningTicks += 1
                seen.sleepingTicks = 0
                if seen.runningTicks >= 2 { seen.blocked = false }
            } else if state != 0 {
                // Asleep at two looks in a row, not one: a CPU-bound job can be caught in
                // a short sleep (a page fault in 'D', a sanitizer's internal lock) and
                // must not add a thread for it (seen once under ThreadSanitizer).
                seen.sleepingTicks += 1
                seen.runningTicks = 0
                if seen.sleepingTicks >= 2 { seen.blocked = true }
            }
            // A blocked job of an overcommitting queue adds nothing: its worker still
            // counts in `running`, and its own credit (`overcommitCredit`, raised while it
            // runs) already makes up for that, so it takes no CPU's place. (`willBlock`
            // takes that credit back because it also takes the worker out of `running`.
            // Taking it back here as well, with the worker still counted, made each such
            // job cost a CPU: with every worker asleep inside an overcommitting job the
            // target fell below `running`, and nothing queued since got a thread, an
            // overcommitting job included: libdispatch's dispatch_readsync hung, 3 runs
            // in about 40.)
            guard seen.blocked, !worker.runsOvercommit.load(ordering: .relaxed) else { continue }
            blockedCount += 1
        }
        let room = max(0, maxThreads - cpuCount)
        credit.store(min(blockedCount, room), ordering: .relaxed)
        refreshUrgentCredit()
        wakeWorkerForUnservedUrgentWork()
        if hasVisibleWork() && running.load(ordering: .sequentiallyConsistent) < target {
            wakeOrStartWorker()
        }
        // A reserve thread starts on its own only while no worker runs (or only blocked
        // ones): past stuck workers that still run, it starts here, for what they held, for
        // handed-off work that a reserve thread started before did not reach (it took an
        // older job, which waited in turn) (`WorkerPool+Reserve.swift`), or for a band's
        // work that needs relief (`WorkerPool+BandRelief.swift`: a job that posted to
        // another band's queue, then computed while every other thread waited for it).
        if atCap && (handedOffStuckWork
                     || (running.load(ordering: .sequentiallyConsistent) <= stuckWorkers
                         && (!handedOff.isEmpty || bandNeedingRelief() != nil))) {
            startReserveForStalledWork()
        }
        breakStall(progress: totalProgress, atCap: atCap, &watchdog.stallWatch)
    }

    /// `worker` raised its nice value and the kernel refuses to lower it again, yet `job`
    /// needs a lower one: the worker leaves the pool (its thread exits after this) and
    /// gives back `job` and its queued jobs; the watchdog starts a thread at nice 0 if one
    /// is needed (`wakeOrStartWorker`). Called on the worker's own thread.
    ///
    /// The job goes to the hand-off queue, ahead of the bands' shared queues, where the
    /// thread started for it (or the next reserve thread) finds it first: the job may be
    /// what every other thread waits for. At the tail of its band's shared queue it sat
    /// behind the waiters, and at the cap no thread was left to reach it: a busy block's
    /// post to a serial queue, handed off by the watchdog, taken by a worker left at nice
    /// 10 by a background job, hung a crowd of 594 blocks waiting for it (the composition
    /// tester run as nobody, seed 829656320, every time; root may always lower its nice).
    func exitPolite(_ worker: Worker, handingBack job: Job) {
        _ = handOffLocalWork(of: worker, waitingOnPosts: false)
        var job: Job? = job
        _ = handedOff.pushBatch(at: Clock.monotonicNanoseconds()) { job.take() }
        leavePool(worker)
        // A thread started here would inherit this thread's nice value: the watchdog, at
        // nice 0, wakes or starts the worker for the jobs handed back.
        watchdog.requestWorker(pool: self)
    }
}

extension WorkerPool {
    /// How often the watching parked worker looks at the LIFO slots of busy workers. A job
    /// left in a slot by a worker that then computes for long starts within about two
    /// periods (libdispatch: 0.04–3.9 ms here), at the cost of one timed wake-up per period
    /// while some worker runs a job and another is parked.
    static let lifoWatchNanoseconds: Int64 = 1_000_000

    /// Whether a worker inside a job holds a LIFO job and has started no job since the
    /// previous look (`lastSeen` holds each worker's progress at that look).
    func hasWaitingLIFOJob(lastSeen: inout [UInt64]) -> Bool {
        let count = slotCount.load(ordering: .acquiring)
        while lastSeen.count < count { lastSeen.append(.max) }
        var found = false
        for index in 0..<count {
            let worker = worker(at: index)
            let progress = worker.progress.load(ordering: .relaxed)
            if progress == lastSeen[index], worker.inJob.load(ordering: .relaxed),
               worker.lifoSlot.load(ordering: .relaxed) != nil {
                found = true
            }
            lastSeen[index] = progress
        }
        return found
    }
}
