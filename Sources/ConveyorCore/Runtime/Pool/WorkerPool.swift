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

/// The process-wide thread pool that runs every queue's work.
///
/// One runnable worker per CPU (from the affinity mask), and one more per band more
/// important than the least important running job while that band's work runs or waits
/// (`WorkerPool+Urgency.swift`). Each worker has its own ring of
/// jobs; jobs from other threads go to an injection queue per priority band, taken most
/// important band first. Idle workers spin briefly, then park on a futex; a producer wakes
/// one parked worker only when no worker is already searching for work. When a worker
/// blocks in a Conveyor wait, another thread takes its place at once; a watchdog covers
/// blocking Conveyor cannot see, judged from the kernel's view of the thread (never from
/// time alone: CPU-bound work adds no thread). Idle threads exit after `idleTimeout`.
/// Many-core notes: SCALING.md next to this file.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    /// Runnable workers wanted when nothing blocks: one per CPU.
    let cpuCount: Int
    /// The cap on the pool threads that ordinary work may start: 4 per CPU, at least 255
    /// (libdispatch's cap). Past it only reserve threads start, for handed-off work, and a
    /// band's work that few threads are inside, while every pool thread waits
    /// (`WorkerPool+Reserve.swift`, `WorkerPool+BandRelief.swift`).
    @inline(__always)
    var maxThreads: Int { threadCap.load(ordering: .relaxed) }
    /// `maxThreads`; lowered only by tests (`lowerThreadCap`).
    let threadCap: Atomic<Int>
    /// Reserve threads that may run at once, not counting those blocked in a Conveyor
    /// wait (`WorkerPool+Reserve.swift`): max(8, CPUs) unless a test lowered it.
    @inline(__always)
    var reserveThreadLimit: Int { reserveLimit.load(ordering: .relaxed) }
    /// `reserveThreadLimit`; lowered only by tests (`lowerReserveThreadLimit`).
    let reserveLimit: Atomic<Int>
    /// Reserve threads that may be alive at once, blocked or not: the reserve's own
    /// ceiling and those the stall breaker added (`WorkerPool+StallBreaker.swift`).
    @inline(__always)
    var reserveThreadCeiling: Int { reserveOwnCeiling + stallAllowance.load(ordering: .relaxed) }
    /// The reserve's ceiling without the stall breaker: four per running one allowed.
    @inline(__always)
    var reserveOwnCeiling: Int { 4 * reserveThreadLimit }
    /// Reserve threads (and turns for jobs pushed behind) allowed past what
    /// `reserveOwnCeiling` gives, because the watchdog found the pool stalled
    /// (`breakStall`); written by the watchdog's thread only.
    let stallAllowance = Atomic<Int>(0)
    /// How many times the stall breaker started a thread (for the state report and tests).
    let stallBreaks = Atomic<Int>(0)
    /// Reserve threads alive now (not counted in `liveThreads`).
    let reserveThreads = Atomic<Int>(0)
    /// Reserve threads blocked in a Conveyor wait now (`willBlock`).
    let blockedReserveThreads = Atomic<Int>(0)
    /// Reserve threads inside a job that was not a blocked job's post (from the hand-off
    /// queue's back, or a band's shared queue: `popReliefJob`), blocked in it or not: at
    /// most `behindTurns` (`reserveJob`).
    let reserveThreadsBehind = Atomic<Int>(0)
    /// How many reserve threads may run (or wait in) jobs that were not a blocked job's
    /// posts: all but one of those the ceiling allows, so that one is left for posts.
    @inline(__always)
    var behindTurns: Int { reserveThreadCeiling - 1 }
    /// Slots allocated: the first cap plus the first reserve ceiling and the stall
    /// breaker's threads, so that a free slot exists for every thread the limits allow
    /// (they are only ever lowered).
    let slotCapacity: Int
    /// How long a parked thread waits for work before it exits.
    let idleTimeoutNanoseconds: Int64 = 10_000_000_000

    /// One shared queue per band, alive as long as the pool (for ever). Held `Unmanaged`
    /// and used through `injectionQueue(_:_:)`: every thread touches them, and a retain and
    /// release around each use was an atomic pair on the queue's own header line.
    let injection: [Unmanaged<InjectionQueue>]
    /// What workers posted just before they blocked in a Conveyor wait (and, behind it, the
    /// rest of their rings), what workers held when they left, and LIFO jobs the watchdog
    /// took from owners stuck inside a job: taken before every band's shared queue
    /// (`popAheadOfBands`; `handOffLocalWork` says why).
    let handedOff = HandOffQueue()
    /// Jobs taken ahead of the bands' shared queues in a row while a band's queue held
    /// work (`popAheadOfBands`); relaxed, a heuristic, as aging's state.
    let aheadOfBandsStreak = Atomic<Int>(0)
    let slots: UnsafeMutablePointer<UInt>
    let slotCount = Atomic<Int>(0)

    /// Workers awake and not blocked (working or searching).
    let running = Atomic<Int>(0)
    /// Workers looking for work without having found any yet.
    let searching = Atomic<Int>(0)
    /// Pool threads alive now.
    let liveThreads = Atomic<Int>(0)
    /// Extra runnable workers: one per worker the watchdog found blocked where Conveyor
    /// cannot see (set afresh on every watchdog tick, so it falls when blockers return),
    /// less one per blocked job of an overcommitting queue (whose `overcommitCredit` must
    /// not buy a thread while it sleeps).
    let credit = Atomic<Int>(0)
    /// Extra runnable workers: one per job of an overcommitting queue running now.
    let overcommitCredit = Atomic<Int>(0)
    /// Extra runnable workers: one per band more important than the least important job
    /// running, while work of that band runs or waits (`WorkerPool+Urgency.swift`).
    let urgentCredit = Atomic<Int>(0)
    /// The least important band running when `urgentCredit` was last computed (its raw
    /// value): workers that ran work above it set the credit afresh after their jobs.
    let urgentFloor = Atomic<UInt8>(QoSBand.background.rawValue)
    /// Set once a job of the utility or background band ran in this process: from then on
    /// a default or utility post may find its band not running while a less important one
    /// runs (`mayOutrankRunningWork`).
    let lessImportantThanDefaultRan = Atomic<Bool>(false)
    /// When a worker last set `urgentCredit` afresh after a job (monotonic ns).
    let lastUrgentRefresh = Atomic<UInt64>(0)
    /// Whether the watchdog's previous tick woke a worker for unserved urgent work
    /// (`wakeWorkerForUnservedUrgentWork`); the watchdog thread's only.
    var urgentWakeLastTick = false
    /// Whose turn aging gives next (`popInjection`).
    let aging = AgingTurns()

    let lock = FutexLock()
    /// Parked worker slots, most recent last (guarded by lock); every change also sets
    /// `parkedThreads`.
    var idle: [Int] = [] {
        didSet { parkedThreads.store(idle.count, ordering: .relaxed) }
    }
    /// `idle.count`, for looks without the lock (`isCrowded`); written with the lock held,
    /// on the lock's own line rather than the counters every producer reads.
    let parkedThreads = Atomic<Int>(0)
    let watchdog = Watchdog()
    /// Set while one parked worker watches the LIFO slots of busy workers.
    let lifoWatcher = Atomic<Bool>(false)

    private init() {
        cpuCount = ThreadInfo.cpuCount
        let cap = max(255, cpuCount * 4)
        threadCap = Atomic(cap)
        reserveLimit = Atomic(max(8, cpuCount))
        slotCapacity = cap + 4 * max(8, cpuCount) + Self.stallThreadLimit
        injection = QoSBand.allCases.map { _ in Unmanaged.passRetained(InjectionQueue()) }
        slots = .allocate(capacity: slotCapacity)
        slots.initialize(repeating: 0, count: slotCapacity)
        cnv_fork_guard_arm()
    }

    /// Runnable workers wanted now.
    @inline(__always)
    var target: Int {
        cpuCount + credit.load(ordering: .relaxed) + overcommitCredit.load(ordering: .relaxed) + urgentCredit.load(ordering: .relaxed)
    }

    @inline(__always)
    var hasSurplusWorkers: Bool { running.load(ordering: .relaxed) > target }

    @inline(__always)
    func worker(at index: Int) -> Worker {
        workerRef(at: index).takeUnretainedValue()
    }

    /// The worker in slot `index`, not retained (workers live as long as the pool): the
    /// form for loops over all workers on hot paths, where a retain and release of each
    /// worker would be an atomic pair on a line its own thread writes.
    @inline(__always)
    func workerRef(at index: Int) -> Unmanaged<Worker> {
        let raw = cnv_atomic_load_slot_acquire(slots + index)
        return Unmanaged<Worker>.fromOpaque(UnsafeRawPointer(bitPattern: raw)!)
    }

    // MARK: submitting

    /// Makes `job` runnable: on the calling worker's own ring when there is one (for work
    /// above the default band, only while that ring is empty, or at the thread cap from a
    /// job of that band: `pushLocally`; for work above the running job's band, only while
    /// some wanted worker does not run; for work below the default band, only from a job
    /// of that band: `workerKeeping`), else on the injection queue of its band.
    ///
    /// A queue that a worker schedules goes to the worker's LIFO slot without waking
    /// anyone: the worker will most likely drain it as soon as its current job returns
    /// (message passing between queues stays on one warm core). The job the slot held
    /// moves to the ring, where others may steal it, and wakes a worker. If the current
    /// job blocks in a Conveyor wait, the slot is handed to the pool at once; if it blocks
    /// where Conveyor cannot see, the watchdog rescues the slot. Plain tasks go to the
    /// ring, first in, first out.
    ///
    /// Queues of a band below the default too, though from the slot a chain of their
    /// drains runs ahead of more important work waiting on the shared queues (up to 32 in
    /// a row, `Worker.takeLIFOJob`; a review found it). Put on the ring instead, a
    /// background serial queue's drain that its last run posted again queued behind the
    /// waiters of a batch taken before it; one of them blocked, the drain went behind
    /// with them (`handOffLocalWork`), and at the cap every reserve thread came to wait
    /// in such a waiter while the drain that was to wake them all waited behind
    /// (`PostAndWaitTests`' background cases beside two threads burning CPU: 2 runs in 5).
    ///
    /// Invariant (issue 11, finding 3): a job in a LIFO slot never waits long on a busy
    /// owner while a CPU idles. One parked worker looks every `lifoWatchNanoseconds` while
    /// jobs run; it wakes itself for a slot whose owner is still inside the job it ran at
    /// the previous look, and a searcher that has looked for a few microseconds may take
    /// a slot whose owner is inside a job (Go's `runnext` rule). Behind both, for when no
    /// worker is parked to watch (it was woken for other work, which then blocked), the
    /// watchdog hands the slot of an owner still inside the job of its previous tick to
    /// the pool (`watchTick`).
    @inline(__always)
    func submit(_ job: consuming Job) {
        if cnv_is_forked_child() != 0 {
            fatalError("Conveyor: work submitted in the child of fork(); the pool's threads do not exist there (only exec is safe after fork)")
        }
        if let current = job.band.rawValue <= QoSBand.default.rawValue ? Worker.current : workerKeeping(job),
           !current.isBlocked, job.band.rawValue > QoSBand.default.rawValue || !current.isStuckAboveDefault {
            // While every wanted worker runs, work more important than the running job
            // waits neither behind it in the LIFO slot nor on the ring, where the urgent
            // credit does not look: on its band's shared queue it gets a worker of its own
            // (`WorkerPool+Urgency.swift`), at the cost of a wake-up per such post (as
            // libdispatch pokes the root queue of the post's QoS). Otherwise it goes where
            // it went before: a searcher or the LIFO watcher takes it from a busy owner.
            // Not at the thread cap, nor from a reserve thread: no worker may start for it
            // there, and reserve threads take handed-off work first (`reserveJob`), which
            // the slot and the ring become when their owner blocks (`willBlock`).
            if job.band.rawValue < current.runningBand.rawValue && current.inJob.load(ordering: .relaxed)
                && running.load(ordering: .relaxed) >= target && !current.isReserve
                && liveThreads.load(ordering: .relaxed) < maxThreads {
                inject(job)
                return
            }
            // Only a running job fills the LIFO slot: its worker looks at the slot as soon
            // as the job returns. Between jobs (held group leaves given just before a
            // search or before the next job, a searcher firing a due timer) the worker may
            // be about to search, park or run a long job instead, and nobody else may take
            // the slot: such work is published on the ring with a wake-up (issue 25,
            // finding 1: a group's notify on a serial queue never ran).
            guard job.isQueueDrain, current.inJob.load(ordering: .relaxed) else {
                pushLocally(job, on: current)
                return
            }
            guard let previous = current.lifoSlot.exchange(job.retainedPointer(), ordering: .acquiringAndReleasing) else {
                // No wake-up per fill (that would cost a futex wake per message between
                // queues): a parked worker watches the slots (`lifoWatchNanoseconds`).
                // When none can be watching (fewer threads than CPUs, or the watcher stood
                // down after every worker parked), wake one: it searches (and takes the
                // slot, `stealOnce`) or parks as the new watcher.
                // Dekker pairing through this fence after the slot store: with the
                // watchdog's `sleeping` store and fence (`Watchdog.run`), and with a
                // watcher standing down (`sleep`: clears `lifoWatcher`, fences, then looks
                // at the slots). Either that look sees this slot, or this load sees no
                // watcher.
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                if liveThreads.load(ordering: .relaxed) < cpuCount || !lifoWatcher.load(ordering: .relaxed) {
                    notifyWorkAvailable()
                } else {
                    watchdog.poke()
                }
                return
            }
            pushLocally(Job.takeRetained(previous), on: current)
            return
        }
        inject(job)
    }

    /// For a post less important than the default band: the calling worker if it is
    /// inside a job of the post's band. Such a post stays with its worker as a default one
    /// does (LIFO slot or ring), so that a poster that then blocks hands it off with the
    /// rest (`willBlock`): on its band's shared queue, with every thread at a cap of 4 in a
    /// background block that waited for such a post, nothing ran them (8 such blocks: the
    /// composition tester's `postAndWait`, program 916141293, every time). A post of
    /// another band still goes to its shared queue, where the bands' order and aging place
    /// it (and where, at the cap, a reserve thread may take it:
    /// `WorkerPool+BandRelief.swift`).
    /// The ring then yields to more important shared work until it is empty
    /// (`Worker.ringBandFloor`, `bandsAheadOfRing`).
    @inline(__always)
    private func workerKeeping(_ job: borrowing Job) -> Worker? {
        guard let current = Worker.current, current.runningBand == job.band, current.inJob.load(ordering: .relaxed) else {
            return nil
        }
        current.ringBandFloor = max(current.ringBandFloor, job.band.rawValue)
        return current
    }

    /// Puts `job` on `worker`'s ring, where others may steal it (moving the ring's older
    /// half out when it is full: `pushSpillingOlderHalf`), and wakes a worker if needed.
    ///
    /// A job more important than the default band goes to its band's shared queue when
    /// the ring already holds work: the ring runs first in, first out, so behind default
    /// work it would wait for all of it, while `findJob` looks at the more important
    /// shared queues before the ring (libdispatch's `dispatch_priority2` test: a queue
    /// retargeted to the HIGH global queue got no service until DEFAULT's work ran out).
    ///
    /// Except, at the thread cap, a post of the running job's own band: there a poster
    /// that blocks hands it off (`willBlock`), while on the shared queue no reserve thread
    /// looked (user-initiated blocks that posted and waited at a cap of 4 stalled: the
    /// composition tester's `postAndWait`, program 382659565; band relief does not reach
    /// a band whose jobs fill the cap, `WorkerPool+BandRelief.swift`). The ring's older or
    /// less important work may then be ahead of it: at the cap, that every post runs comes
    /// first. (Not also below the cap behind only the job's own posts: those may be of a
    /// less important band, and the post would wait for them, a review found.)
    private func pushLocally(_ job: Job, on worker: Worker) {
        if job.band.rawValue < QoSBand.default.rawValue && !worker.local.isEmpty && !keepsOwnBandPost(job, on: worker) {
            inject(job)
            return
        }
        if !worker.local.push(job) { pushSpillingOlderHalf(job, on: worker) }
        notifyWorkAvailable()
    }

    /// Whether `job`, more important than the default band and posted onto `worker`'s
    /// non-empty ring, stays there (`pushLocally`).
    private func keepsOwnBandPost(_ job: borrowing Job, on worker: Worker) -> Bool {
        liveThreads.load(ordering: .relaxed) >= maxThreads && worker.runningBand == job.band
            && worker.inJob.load(ordering: .relaxed)
    }

    /// Puts `job` on `worker`'s full ring (owner only) after moving the ring's older half,
    /// in order, to the bands' shared queues, as Go's scheduler spills a full run queue;
    /// a reserve thread's, to the hand-off queue as a batch of posts, since reserve
    /// threads look at the bands' queues only for relief (`reserveJob`) and at the cap
    /// nothing else may run them.
    ///
    /// Not `job` itself: from a running job it is that job's newest post, the one it most
    /// likely waits for, and `willBlock` hands off only what the ring holds. A worker
    /// whose ring a concurrent queue's drain had filled with items that post and wait took
    /// one of them from elsewhere; its post went to the band's queue behind thousands of
    /// such items, and at the cap every thread came to wait for posts queued there (a
    /// reserve limit of 2: one run in 36 of `PostAndWaitTests`).
    func pushSpillingOlderHalf(_ job: Job, on worker: Worker) {
        var count = Int(LocalRunQueue.capacity / 2)
        let nextOlder = { () -> Job? in
            guard count > 0 else { return nil }
            count -= 1
            return worker.local.pop()
        }
        if worker.isReserve {
            if handedOff.pushBatch(at: Clock.monotonicNanoseconds(), nextOlder) { notifyWorkAvailable() }
        } else {
            while let older = nextOlder() { inject(older) }
        }
        // Room now: only the owner pushes.
        if !worker.local.push(job) { inject(job) }
    }

    /// Puts `job` on its band's shared queue and wakes a worker if needed.
    ///
    /// Only the push that makes the queue non-empty looks for a worker to wake, as
    /// libdispatch's root queue push pokes only on empty: a burst from one thread then
    /// costs no fence and no read of the pool's busiest counters per job (they move with
    /// every search, so each read was a cache miss: a third of the producer's time in
    /// `dispatch_group_async_f` bursts). A push onto a non-empty queue needs no wake-up of
    /// its own: the job stays visible (`hasVisibleWork`) until taken. Whoever made the
    /// queue non-empty woke a worker, found one searching (it looks again before it stops:
    /// `stopSearching`, `park`) or, with every wanted worker running, poked the watchdog;
    /// a worker that takes from the queue and leaves work behind wakes the next one
    /// (`popInjection`'s `wakingAnotherIfWorkRemains`, `stopSearching`).
    func inject(_ job: consuming Job) {
        let band = job.band
        if pushInjected(job) { notifyWorkAvailable(posted: band) }
    }

    /// After new work: wake a parked worker (or start one) unless someone already searches
    /// or every wanted worker is already running.
    ///
    /// Dekker pairing: the caller published the job (ring tail, LIFO slot or injection
    /// list), then this reads `searching`, `running` and the watchdog's word. The other
    /// halves: a searcher or parker decrements `searching`/`running` (seq_cst RMW) and then
    /// looks for work (`park`, `sleep`), and the watchdog stores `sleeping` and then looks
    /// (`Watchdog.run`). Without the fence the loads here could be ordered before the
    /// publishing store (store→load reordering, allowed even on x86): the producer sees a
    /// searcher that the searcher's look then misses, and both sleep on a runnable job.
    ///
    /// A searcher that the kernel preempted (a busy machine) still counts as searching, so
    /// a post would wake nobody and wait for that searcher's next time slice
    /// (`WorkerPool+PreemptedSearchers.swift`): a post from outside the pool then wakes or
    /// starts a worker past them.
    ///
    /// `posted`, the band of the job just published where the caller knows it: work of a
    /// band nobody runs, while a less important band runs, gets a worker past the target
    /// (`WorkerPool+Urgency.swift`).
    @inline(__always)
    func notifyWorkAvailable(posted band: QoSBand? = nil) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if searching.load(ordering: .sequentiallyConsistent) != 0 {
            if Worker.current == nil, searchersLookPreempted() { wakeOrStartWorker(pastPreemptedSearchers: true) }
            return
        }
        if running.load(ordering: .sequentiallyConsistent) >= target {
            if let band, mayOutrankRunningWork(band), raiseUrgentCredit(for: band) { wakeOrStartWorker(urgentBand: band) }
            // Poked either way (after the urgent wake-up, which must not wait for it): its
            // tick sets the credit again if a refresh raced the raise.
            watchdog.poke()
            return
        }
        wakeOrStartWorker()
    }

    // MARK: finding work

    /// The next job for `worker`: the band it was woken for (`takeUrgentJob`), its LIFO
    /// slot, work above the default band (or above the least important band the ring
    /// holds posts of, `bandsAheadOfRing`) waiting on
    /// its shared queue (while the ring holds work), its ring, the injection queues (most
    /// important first; ahead of them, within limits, handed-off jobs and, while the pool
    /// is crowded, steals: `popAheadOfBands`), then stealing, then a short spin. Nil
    /// means park.
    @inline(__always)
    func findJob(for worker: Worker) -> Job? {
        worker.tick &+= 1
        if let job = takeUrgentJob(for: worker) { return job }
        if worker.tick % 61 == 0 {
            worker.releaseHeldLeaves()   // before any job from elsewhere (`Worker.leaveLater`)
            if let job = popInjection(for: worker) { return job }
        }
        if let job = worker.takeLIFOJob(pool: self) { return job }
        // The ring runs first in, first out, whatever the bands: work more important than
        // the default band that waits on its shared queue goes first (`pushLocally` puts
        // such work there when the ring holds anything, below the cap), and than the least
        // important band the ring holds posts of (`workerKeeping`), but the ring gets
        // every `agingShare + 1`th turn, so that its work is slowed, not starved, as aging
        // bounds the wait of the less important shared queues. Each job taken alone
        // (`popAlone`): none moved into the ring, behind whose work it would wait.
        if !worker.local.isEmpty, case let end = bandsAheadOfRing(of: worker), moreImportantIsWaiting(before: end) {
            if worker.turnsPastRing < Self.agingShare {
                worker.releaseHeldLeaves()   // before any job from elsewhere (`Worker.leaveLater`)
                if let job = popMostImportant(before: end, for: worker) {
                    worker.turnsPastRing += 1
                    return job
                }
            } else {
                worker.turnsPastRing = 0
            }
        }
        // Nor does the ring starve the less important bands: aging bounds their wait among
        // the shared queues, but a worker whose ring held a batch of long jobs looked
        // there only when the ring was empty (a background block waited for all of 12
        // default blocks of 50 ms that two workers had taken, 295 ms, where libdispatch
        // started it at once). Once such a band has waited `agingNanoseconds`, every
        // `agingShare + 1`th turn goes to the shared queues, where aging picks the job.
        if !worker.local.isEmpty && lessImportantThanDefaultIsWaiting {
            if worker.ringTurnsPastLessImportant < Self.agingShare {
                worker.ringTurnsPastLessImportant += 1
            } else if lessImportantThanDefaultHasAged {
                worker.ringTurnsPastLessImportant = 0
                worker.releaseHeldLeaves()   // before any job from elsewhere (`Worker.leaveLater`)
                if let job = popInjection(for: worker) { return job }
            }
        }
        if let job = worker.local.pop() { return job }
        worker.ringBandFloor = QoSBand.default.rawValue   // the ring is empty
        // Held leaves cover only jobs from this worker's own ring (`Worker.leaveLater`): a
        // shared queue or a steal may hand over a job that entered the group after them.
        if worker.heldLeavesGroup != nil {
            worker.releaseHeldLeaves()
            // The leave may have emptied the group: its notify is on this ring now.
            if let job = worker.local.pop() { return job }
        }
        if let job = popInjection(for: worker) { return job }
        return search(for: worker)
    }

    /// Whether any queue of the pool holds a job (a racy look). LIFO slots count only
    /// when asked: they belong to a running worker, which will run them itself.
    func hasVisibleWork(includingLIFO: Bool = false) -> Bool {
        if !handedOff.isEmpty { return true }
        for index in injection.indices where !injectionQueue(index, { $0.isEmpty }) { return true }
        let count = slotCount.load(ordering: .acquiring)
        for index in 0..<count {
            let busy = workerRef(at: index)._withUnsafeGuaranteedRef { worker in
                !worker.local.isEmpty || (includingLIFO && worker.lifoSlot.load(ordering: .relaxed) != nil)
            }
            if busy { return true }
        }
        return false
    }
}
