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

/// One pool thread's state. Worker objects live as long as the process (the pool keeps
/// them in fixed slots); a slot's thread exits after an idle timeout and a new thread may
/// take the slot later.
final class Worker: @unchecked Sendable {
    /// The slot number in the pool.
    let index: Int
    /// Runnable jobs this worker made; others may steal half.
    let local = LocalRunQueue()
    /// Where the thread sleeps when there is no work.
    let parker = Parker()
    /// The job this worker made runnable last; it runs next, unless a searcher takes it
    /// while this worker is still inside a job, or the watchdog finds this worker blocked.
    let lifoSlot = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Jobs started, for the watchdog to see progress (written by the owner only).
    let progress = Atomic<UInt64>(0)
    /// The kernel thread id, for the watchdog to read the thread's state (0 before start).
    let threadID = Atomic<Int32>(0)
    /// True while the thread runs a job (written by the owner only).
    let inJob = Atomic<Bool>(false)
    /// True while the thread waits in a Conveyor wait the pool already compensates.
    let inConveyorWait = Atomic<Bool>(false)
    /// `runningBand`'s raw value, for other threads (`WorkerPool+Urgency.swift`): written by
    /// the owner when a job of another band starts, read relaxed (a sample, beside
    /// `inJob`).
    let publishedBand = Atomic<UInt8>(QoSBand.default.rawValue)
    /// The band this worker was woken or started for because nobody ran that band while a
    /// less important one ran (`WorkerPool.wakeOrStartWorker(urgentBand:)`), or `Worker.noUrgentBand`:
    /// stored under the pool's lock before the wake-up, taken by the worker at its next
    /// look for work (`WorkerPool.takeUrgentJob`).
    let urgentBand = Atomic<UInt8>(Worker.noUrgentBand)
    /// `urgentBand` when the worker was not woken for urgent work.
    static let noUrgentBand: UInt8 = .max
    /// Keeps `searchStamp` off the line of the fields written on every job.
    private let stampPadding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// While this worker counts as searching: when it last showed that it runs (monotonic
    /// ns; its waker's count stamps it too). 0 while it does not search. Read by producers
    /// outside the pool (`WorkerPool.searchersLookPreempted`).
    let searchStamp = Atomic<UInt64>(0)
    private let stampPaddingAfter: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    // Owner-thread state.
    var isSearching = false
    var isBlocked = false
    /// Set while this worker runs a job of an overcommitting queue (`Job.isOvercommit`):
    /// the pool's `overcommitCredit` counts it, except while it is blocked. Written by the
    /// worker, read by the watchdog too (relaxed: the watchdog's view is a sample, and its
    /// next tick corrects a stale one).
    let runsOvercommit = Atomic<Bool>(false)
    var tick: UInt32 = 0
    var lifoStreak = 0
    /// Jobs taken from the more important shared queues in a row while the ring held
    /// work (`WorkerPool.findJob`); owner only.
    var turnsPastRing = 0
    /// Jobs taken from the ring in a row while a less important band's shared queue held
    /// work (`WorkerPool.findJob`); owner only.
    var ringTurnsPastLessImportant = 0
    /// The ring's tail position when the current job began: the ring's jobs past it are
    /// the ones this job posted (`ringJobsBeforeCurrentJob`). Written by the owner at each
    /// job's start; read by the watchdog too (relaxed: it reads it only for a job it saw at
    /// its previous tick, about 10 ms before, and a stale value misplaces jobs in the
    /// hand-off queue's order, never loses one).
    let ringTailAtJobStart = Atomic<UInt32>(0)
    var currentNice: Int32 = 0
    /// Set when this thread raised its own nice value (for utility or background work, or
    /// back to 0 after more important work).
    var raisedNice = false
    /// The highest nice value the kernel refused to lower this thread to (no privilege):
    /// lowering to it or below is not tried again. A thread left above 0 this way runs no
    /// more work of a higher QoS: it hands the job back and exits (`canRun`).
    var refusedNice: Int32?
    var randomState: UInt32
    /// The band of the job this worker runs now.
    var runningBand: QoSBand = .default
    /// The least important band below the default one whose posts this worker kept on its
    /// ring (`WorkerPool.workerKeeping`), as a raw value; the default band's when none, or
    /// once the owner found the ring empty. Owner only (`WorkerPool.bandsAheadOfRing`).
    var ringBandFloor: UInt8 = QoSBand.default.rawValue
    /// The band of the global queue that job was submitted to, for work that runs with no
    /// frame (`Job.rootBand`).
    var runningRootBand: QoSBand = .default
    /// The group this worker owes leaves to (see `leaveLater`).
    var heldLeavesGroup: Unmanaged<DispatchGroup>?
    /// How many leaves of `heldLeavesGroup` this worker owes.
    var heldLeaves: UInt32 = 0

    // Guarded by the pool's lock.
    var isParked = false
    var hasThread = false
    /// Set while the slot's thread is a reserve thread (`WorkerPool+Reserve.swift`):
    /// written with the lock held (before the thread starts, when it leaves, or when it
    /// failed to start), read without it only on that thread (`willBlock`, `submit`).
    var isReserve = false
    /// Set while this reserve thread runs a job of the hand-off queue's back, holding one
    /// of the pool's turns for that (`WorkerPool.reserveJob`); its own thread only.
    var isBehindTurnHeld = false

    init(index: Int) {
        self.index = index
        randomState = UInt32(truncatingIfNeeded: index &* 2654435761 &+ 1)
    }

    /// A cheap xorshift number for picking steal victims.
    func nextRandom() -> UInt32 {
        var x = randomState
        x ^= x << 13
        x ^= x >> 17
        x ^= x << 5
        randomState = x
        return x
    }

    /// The worker running on the calling thread, if the caller is a pool thread.
    @inline(__always)
    static var current: Worker? {
        guard let raw = cnv_tls_get_context() else { return nil }
        return Unmanaged<Worker>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Whether the calling thread is a worker with no other job of its own waiting (its
    /// LIFO slot and ring are empty); false off the pool. Takes no reference to the worker
    /// (`current` retains and releases it, two atomic operations).
    static var currentHasNothingElse: Bool {
        guard let raw = cnv_tls_get_context() else { return false }
        return Unmanaged<Worker>.fromOpaque(raw)._withUnsafeGuaranteedRef { worker in
            worker.lifoSlot.load(ordering: .relaxed) == nil && worker.local.isEmpty
        }
    }

    /// Runs jobs until the pool lets this thread go.
    func runLoop(pool: WorkerPool) {
        startOnThisThread(name: "conveyor.worker")
        isSearching = true   // the pool counted this thread as searching when it started it
        while true {
            if let job = pool.findJob(for: self) {
                if isSearching { pool.stopSearching(self) }
                guard runFound(job, pool: pool) else { break }
                if pool.shouldRefreshUrgentCredit(after: runningBand) { pool.refreshUrgentCredit() }
                if pool.hasSurplusWorkers {
                    releaseHeldLeaves()
                    if pool.retire(self) == false { break }
                }
                continue
            }
            releaseHeldLeaves()   // `findJob` did before searching; this is for the other ways out
            if !pool.park(self) { break }
        }
        cnv_tls_set_context(nil)
    }

    /// Makes the calling thread this worker's: its thread-local context, id, name and
    /// nice value (a slot's earlier thread may have left the nice state set).
    func startOnThisThread(name: String) {
        cnv_tls_set_context(Unmanaged.passUnretained(self).toOpaque())
        threadID.store(cnv_gettid(), ordering: .relaxed)
        ThreadInfo.setName(name)
        ThreadInfo.setNice(0)
        currentNice = ThreadInfo.nice
        raisedNice = false
        refusedNice = nil
    }

    /// Runs `job`, which this worker took: gives the leaves it holds first (unless `job`
    /// is covered by them), and marks it as inside a job meanwhile. Returns false, without
    /// running it, when this thread cannot run it at its nice value and has left the pool
    /// (`WorkerPool.exitPolite` gave the job back).
    @inline(__always)
    func runFound(_ job: consuming Job, pool: WorkerPool) -> Bool {
        if heldLeavesGroup != nil { releaseHeldLeaves(unlessRunning: job) }
        if !canRun(job) {
            releaseHeldLeaves()
            // Before leaving: the thread started for the job given back may need the turn.
            releaseBehindTurn(pool: pool)
            // Invariant: work of a QoS never runs at the nice value of a lower QoS.
            // An unprivileged thread cannot lower its nice again, so the thread
            // that raised it for background work leaves the pool and gives the job
            // to a thread at the right value (started by the watchdog, at nice 0).
            pool.exitPolite(self, handingBack: job)
            return false
        }
        inJob.store(true, ordering: .relaxed)
        ringTailAtJobStart.store(local.tailPosition, ordering: .relaxed)
        let overcommit = job.isOvercommit
        if overcommit {
            runsOvercommit.store(true, ordering: .relaxed)
            pool.beginOvercommit()
        }
        // The pool's reference goes on to the job (`runConsumingReference`): the
        // retain here and the end of `job`'s lifetime right after it cancel out.
        run(Unmanaged.passRetained(consume job))
        if overcommit {
            pool.endOvercommit()
            runsOvercommit.store(false, ordering: .relaxed)
        }
        inJob.store(false, ordering: .relaxed)
        return true
    }

    /// The job in this worker's LIFO slot, unless 32 were taken from it in a row: then
    /// that job goes behind the ring's (a chain of jobs handing the slot on must not
    /// starve the ring for ever) and nil is returned.
    @inline(__always)
    func takeLIFOJob(pool: WorkerPool) -> Job? {
        guard lifoSlot.load(ordering: .relaxed) != nil, let raw = lifoSlot.exchange(nil, ordering: .acquiringAndReleasing) else {
            lifoStreak = 0
            return nil
        }
        let job = Job.takeRetained(raw)
        lifoStreak += 1
        if lifoStreak <= 32 { return job }
        lifoStreak = 0
        if !local.push(job) { pool.pushSpillingOlderHalf(job, on: self) }
        return nil
    }

    /// Whether this thread may run `job`: at the job's nice value, or at 0 where the
    /// process may not go below it (`QoSBand.niceValue`). False only for a thread that
    /// raised its nice above that itself and may not lower it: one that started higher
    /// (a program run under `nice`) runs at the value the program chose.
    @inline(__always)
    private func canRun(_ job: Job) -> Bool {
        let nice = job.band.niceValue
        let ceiling = max(nice, 0)
        if currentNice <= ceiling || !raisedNice { return true }
        moveNice(toward: nice)
        return currentNice <= ceiling
    }

    /// Whether this thread raised its nice above 0 itself and was refused the way back: it
    /// takes no work of the default band or above into its own slots (`WorkerPool.submit`),
    /// since it would not run it (`canRun`). A thread that started above 0 (a program run
    /// under `nice`, a thread started by one) runs such work at its value, and keeps its
    /// posts: on a shared queue, a busy job's post waited behind a more important band's
    /// crowd of blocks that waited for it, and at the cap no thread reached it (the
    /// composition tester as nobody under `nice -n 10`, program 226507000, every time;
    /// in its slot the watchdog hands it to a reserve thread).
    var isStuckAboveDefault: Bool { holdsRaisedNice && !mayLowerNice(to: 0) }

    /// Whether this thread raised its nice above 0 itself (for background or utility
    /// work): a thread it started would inherit that value, so it asks the watchdog, at
    /// the program's value, to start one instead (`WorkerPool.wakeOrStartWorker`,
    /// `WorkerPool.reserveDidExit`).
    var holdsRaisedNice: Bool { raisedNice && currentNice > 0 }

    /// How many of the ring's jobs, at its older end, were there before the current job
    /// began (a batch taken from a shared queue, a steal, work posted before the job): not
    /// posts of this job, which are the rest. Thieves take from the older end, so this is
    /// what is left of them; an estimate if a steal or a pop races it.
    var ringJobsBeforeCurrentJob: Int {
        let posts = Int(local.tailPosition &- ringTailAtJobStart.load(ordering: .relaxed))
        return max(0, local.count - posts)
    }

    @inline(__always)
    private func mayLowerNice(to nice: Int32) -> Bool { refusedNice.map { nice > $0 } ?? true }

    /// Runs `job` and gives up the reference passed in (see `Job.runConsumingReference`).
    @inline(__always)
    private func run(_ job: Unmanaged<Job>) {
        job._withUnsafeGuaranteedRef { job in
            let nice = job.band.niceValue
            if nice != currentNice { moveNice(toward: nice) }
            progress.store(progress.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
            if job.band != runningBand { publishBand(job.band) }
            runningBand = job.band
            runningRootBand = job.rootBand
            if let queue = job.redirectQueue {
                job.redirectQueue = nil
                queue.runRedirected(job)
            } else {
                job.runConsumingReference(onWorker: self)
            }
        }
    }

    /// Makes `band` this worker's published band; the first job of a band less important
    /// than the default one also tells the pool that such work exists
    /// (`WorkerPool.mayOutrankRunningWork`).
    private func publishBand(_ band: QoSBand) {
        publishedBand.store(band.rawValue, ordering: .relaxed)
        if band.rawValue > QoSBand.default.rawValue {
            let pool = WorkerPool.shared
            if !pool.lessImportantThanDefaultRan.load(ordering: .relaxed) {
                pool.lessImportantThanDefaultRan.store(true, ordering: .relaxed)
            }
        }
    }

    /// Sets this thread's nice value to `nice`. Lowering needs privilege (CAP_SYS_NICE, or
    /// an RLIMIT_NICE that allows it): where the kernel refuses, the thread keeps the
    /// higher value, which only ever makes it politer, or, for a value below 0, goes to 0
    /// if it can. Each refusal is remembered (`refusedNice`), so an unprivileged thread
    /// asks once, not for every job of a more important QoS.
    private func moveNice(toward nice: Int32) {
        if nice > currentNice || mayLowerNice(to: nice) {
            if cnv_set_thread_nice(nice) == 0 {
                if nice > currentNice { raisedNice = true }
                currentNice = nice
                return
            }
            if nice < currentNice { refusedNice = max(refusedNice ?? nice, nice) }
        }
        if nice < 0 && currentNice > 0 && mayLowerNice(to: 0) { moveNice(toward: 0) }
    }
}

/// Entry point of every pool thread (a C function: it captures nothing).
func workerThreadEntry(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let worker = Unmanaged<Worker>.fromOpaque(argument!).takeUnretainedValue()
    // Set under the pool's lock before this thread was created, cleared only by it.
    if worker.isReserve {
        worker.runAsReserve(pool: WorkerPool.shared)
        return nil
    }
    worker.runLoop(pool: WorkerPool.shared)
    WorkerPool.shared.threadDidExit()
    return nil
}
