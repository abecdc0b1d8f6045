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

// The pool's shared queues, one per priority band: putting jobs on them, and taking
// them off in band order with aging.
extension WorkerPool {
    /// How long a band's shared queue must hold work unserved, while more important bands
    /// are served, before it may be aged ahead of them (issue 11, finding 4).
    static let agingNanoseconds: UInt64 = 2_000_000

    /// Jobs the most important waiting band gets between two aged jobs of less important
    /// bands (issue 25, finding 8).
    static let agingShare = 3

    /// Most jobs a take from a shared queue moves into the worker's ring besides the one
    /// it returns, while no less important band waits; while one does, `agingShare - 1`,
    /// so that a take is one turn's worth.
    static let injectionBatch = 31

    /// The most important band's job, or an aged job of a less important band. Before
    /// them, within limits: the jobs blocked workers handed off and, while the pool is
    /// crowded, what running jobs posted (`popAheadOfBands`).
    ///
    /// Aging bounds a lower band's wait without inverting the order as a whole: a band
    /// that waited `agingNanoseconds` is served only after the most important band got
    /// `agingShare` jobs since the last aged one, so at most one job in `agingShare + 1`
    /// is aged, however long jobs run. (When every aged band won its turn, a band whose
    /// jobs all ran longer than `agingNanoseconds` was always aged: the more important
    /// band starved.) Aged turns go to the waiting bands by stride scheduling
    /// (`AgingTurns`): a band one step further down gets half the turns, so with all
    /// bands saturated each gets less service than every band above it. Every non-empty
    /// band is served: turns come every `agingShare` jobs, and a band's pass falls behind
    /// the others' until it wins one.
    ///
    /// A band whose queue is busy (another worker takes a batch) makes this return nil
    /// rather than take a less important band's work; that worker wakes another if work
    /// remains (`wakingAnotherIfWorkRemains`), as when only one band holds work.
    @inline(__always)
    func popInjection(for worker: Worker) -> Job? {
        if let job = popAheadOfBands(for: worker) { return job }
        var first = -1
        var aged = -1
        var agedPass: UInt64 = .max
        var lowerWaiting = false
        var now: UInt64 = 0
        var floor: UInt64 = 0
        for index in injection.indices where !injectionQueue(index, { $0.isEmpty }) {
            if first < 0 {
                first = index
                continue
            }
            if !lowerWaiting {
                lowerWaiting = true
                if aging.credit.load(ordering: .relaxed) > 0 { break }  // the first band's turn
                now = Clock.monotonicNanoseconds()
                floor = aging.clock.load(ordering: .relaxed)
            }
            let (waited, pass) = injectionQueue(index) {
                ($0.waitedUnserved(Self.agingNanoseconds, at: now), $0.agingPass.load(ordering: .relaxed))
            }
            guard waited else { continue }
            let effective = max(pass, floor)
            if effective < agedPass {   // ties go to the more important band
                aged = index
                agedPass = effective
            }
        }
        if first < 0 { return nil }
        var moved = 0
        if aged >= 0, let job = injectionQueue(aged, { queue in
            queue.pop(movingUpTo: 0, into: nil, moved: &moved).map { job -> Job in
                queue.agingPass.store(agedPass &+ (1 << UInt64(aged - first - 1)), ordering: .relaxed)
                return wakingAnotherIfWorkRemains(job, after: queue, for: worker)
            }
        }) {
            aging.clock.store(agedPass, ordering: .relaxed)
            aging.credit.store(Self.agingShare, ordering: .relaxed)
            return job
        }
        let batch = lowerWaiting ? Self.agingShare - 1 : Self.injectionBatch
        for index in first..<injection.count {
            var isBusy = false
            let taken = injectionQueue(index) { queue -> Job? in
                guard !queue.isEmpty else { return nil }
                guard let job = queue.pop(movingUpTo: batch, into: worker.local, moved: &moved) else {
                    isBusy = !queue.isEmpty
                    return nil
                }
                return wakingAnotherIfWorkRemains(job, after: queue, for: worker)
            }
            if let taken {
                if lowerWaiting && aging.credit.load(ordering: .relaxed) > 0 {
                    aging.credit.wrappingSubtract(1 + moved, ordering: .relaxed)
                }
                return taken
            }
            if isBusy { return nil }
        }
        return nil
    }

    /// A job taken ahead of the bands' shared queues, alone: the next one that a worker
    /// handed off when it blocked (`handOffLocalWork`) or, while the pool is crowded, one
    /// that a running job posted (`stealAheadOfBands`). Unless the bands have their turn:
    /// after `agingShare` such jobs in a row taken while any band's queue held work, and
    /// while a band more important than a handed-off job's holds work (unless the oldest
    /// has waited `agingNanoseconds`). A steal's band is known only once taken, and it
    /// goes ahead of any band: held back while bands above the default one wait, a post
    /// hidden in a running job hung a crowd of such bands' jobs that waited for it (the
    /// composition tester, seed 914407541). So a blocked job's posts go
    /// ahead of everything queued at their importance and below, yet a recursive fork-join
    /// that keeps the hand-off queue busy neither holds back more important work nor
    /// starves a band. One streak for both, so that the bands' turn is one take in
    /// `agingShare + 1` however the two mix.
    @inline(__always)
    func popAheadOfBands(for worker: Worker) -> Job? {
        let crowded = isCrowded
        guard crowded || !handedOff.isEmpty else { return nil }
        let firstWaitingBand = injection.indices.first { !injectionQueue($0, { $0.isEmpty }) }
        if firstWaitingBand != nil {
            if aheadOfBandsStreak.load(ordering: .relaxed) >= Self.agingShare {
                aheadOfBandsStreak.store(0, ordering: .relaxed)
                return nil
            }
        } else if aheadOfBandsStreak.load(ordering: .relaxed) != 0 {
            aheadOfBandsStreak.store(0, ordering: .relaxed)
        }
        // While crowded, a steal comes before the jobs pushed behind the posts (ring jobs
        // of blocked workers: often more jobs that block): a busy job's post, hidden in
        // its ring, is often what a crowd waits for (the composition tester, seed
        // 545318473: 721 items of a concurrent queue waiting for a busy block's post).
        var job = popHandedOff(for: worker, firstWaitingBand: firstWaitingBand, postsOnly: crowded)
        if job == nil, crowded {
            job = stealAheadOfBands(for: worker)
            if job == nil { job = popHandedOff(for: worker, firstWaitingBand: firstWaitingBand, postsOnly: false) }
        }
        if job != nil, firstWaitingBand != nil { aheadOfBandsStreak.wrappingAdd(1, ordering: .relaxed) }
        return job
    }

    /// The next job of the hand-off queue, unless the first band holding work
    /// (`firstWaitingBand`) is more important than it and the oldest has not aged; with
    /// `postsOnly`, not one pushed behind (`HandOffQueue.pushBehind`). Another worker is
    /// woken if more wait there.
    @inline(__always)
    private func popHandedOff(for worker: Worker, firstWaitingBand: Int?, postsOnly: Bool) -> Job? {
        guard !handedOff.isEmpty else { return nil }
        let now = Clock.monotonicNanoseconds()
        if let firstWaitingBand, firstWaitingBand < handedOff.nextBand,
           !handedOff.oldestWaited(Self.agingNanoseconds, at: now) {
            return nil
        }
        guard let job = handedOff.pop(at: now, agingAfter: Self.agingNanoseconds, share: Self.agingShare,
                                      postsOnly: postsOnly) else { return nil }
        if !worker.isSearching && !handedOff.isEmpty { notifyWorkAvailable() }
        return job
    }

    /// Where `findJob`'s look past the ring of `worker` ends (a raw band value): the bands
    /// more important than the default one, or than the least important band the ring
    /// holds posts of (`Worker.ringBandFloor`; not the band of the last job, with which
    /// a worker alternated between the ring and the shared work it yielded to, a review
    /// found). Not past the default band for a thread that raised its nice and may not
    /// lower it again: it would take work it cannot run, give it back and leave.
    @inline(__always)
    func bandsAheadOfRing(of worker: Worker) -> Int {
        let defaultBand = QoSBand.default.rawValue
        guard worker.ringBandFloor > defaultBand, !worker.isStuckAboveDefault else { return Int(defaultBand) }
        return Int(worker.ringBandFloor)
    }

    /// A job of the most important band whose shared queue holds work, among the bands
    /// before `end` (raw values), taken alone: no aging turn, no batch into the ring.
    func popMostImportant(before end: Int, for worker: Worker) -> Job? {
        for index in 0..<end {
            if let job = popAlone(fromBand: index, for: worker) { return job }
        }
        return nil
    }

    /// One job of band `index`'s shared queue, taken alone (none moved into the ring), or
    /// nil if the queue is empty or another worker holds it; wakes another worker if work
    /// remains (`wakingAnotherIfWorkRemains`).
    @inline(__always)
    func popAlone(fromBand index: Int, for worker: Worker) -> Job? {
        var moved = 0
        return injectionQueue(index) { queue -> Job? in
            guard !queue.isEmpty, let job = queue.pop(movingUpTo: 0, into: nil, moved: &moved) else { return nil }
            return wakingAnotherIfWorkRemains(job, after: queue, for: worker)
        }
    }

    /// Whether the shared queue of a band before `end` (raw values) holds a job (a racy
    /// look: a job pushed as this reads is found at the next job, or by the worker its
    /// push wakes). Before the default band (the common end), those queues are written
    /// only when such work exists, so the look is two loads of lines every core keeps in
    /// its cache; past it, the default queue's line is written often.
    @inline(__always)
    func moreImportantIsWaiting(before end: Int) -> Bool {
        for index in 0..<end where !injectionQueue(index, { $0.isEmpty }) { return true }
        return false
    }

    /// Whether the utility or background band's shared queue holds work (a racy look).
    var lessImportantThanDefaultIsWaiting: Bool {
        !injectionQueue(Int(QoSBand.utility.rawValue), { $0.isEmpty })
            || !injectionQueue(Int(QoSBand.background.rawValue), { $0.isEmpty })
    }

    /// Whether the utility or background band's shared queue holds work unserved for
    /// `agingNanoseconds` (a racy look; reads the clock).
    var lessImportantThanDefaultHasAged: Bool {
        let now = Clock.monotonicNanoseconds()
        func aged(_ band: QoSBand) -> Bool {
            injectionQueue(Int(band.rawValue)) { !$0.isEmpty && $0.waitedUnserved(Self.agingNanoseconds, at: now) }
        }
        return aged(.utility) || aged(.background)
    }

    /// Calls `body` with the shared queue of band `index`, without retaining it.
    @inline(__always)
    func injectionQueue<R>(_ index: Int, _ body: (InjectionQueue) -> R) -> R {
        injection[index]._withUnsafeGuaranteedRef(body)
    }

    /// Puts `job` on its band's shared queue; true when that queue was empty before (the
    /// caller then sees that a worker is woken, `notifyWorkAvailable`).
    @inline(__always)
    func pushInjected(_ job: consuming Job) -> Bool {
        let band = Int(job.band.rawValue)
        // A caller that held `job` +0 copied it for this call: that retain is done before
        // the job is published (as in `JobList.push`, which says why it is here).
        _ = cnv_publication_barrier(Unmanaged.passUnretained(job).toOpaque())
        let retained = Unmanaged.passRetained(consume job)
        return injectionQueue(band) { $0.push(retained: retained) }
    }

    /// The other half of `inject`'s wake-up on empty: a worker that takes a batch from a
    /// shared queue and leaves work behind (there, or moved to its own ring where others
    /// may steal it) wakes another worker if none searches and CPUs are free, so a burst
    /// is spread over the CPUs as libdispatch's root queue drain pokes the next thread.
    /// Once per batch, not per job.
    ///
    /// Pairing with `inject`: a pusher's compare-and-swap of the tail word and the popper's
    /// compare-and-swap that marks it empty (`SegmentedJobQueue.markEmptyOrFindMore`) act
    /// on one word, so either the pusher saw the queue empty and notifies, or its job is in
    /// the queue (or this worker's ring) when this checks.
    @inline(__always)
    private func wakingAnotherIfWorkRemains(_ job: Job, after queue: InjectionQueue, for worker: Worker) -> Job {
        if !worker.isSearching && (!queue.isEmpty || !worker.local.isEmpty) { notifyWorkAvailable() }
        return job
    }
}

/// Aging's shared state (see `WorkerPool.popInjection`): stride scheduling of the aged
/// turns among the waiting bands, and the share of the most important band between them.
/// Relaxed atomics: a heuristic, where racing updates only shift a turn.
///
/// Each band has a pass (`InjectionQueue.agingPass`); an aged turn goes to the eligible
/// band with the smallest pass, which then grows by its stride (1 for the band just below
/// the most important waiting one, 2 for the next, 4, ...). `clock` is the pass of the
/// last turn: a band that was empty for a while competes from there, rather than taking
/// turn after turn to catch up.
final class AgingTurns: Sendable {
    /// Jobs the most important waiting band is still owed before the next aged turn.
    let credit = Atomic<Int>(0)
    /// The pass of the band that had the last aged turn.
    let clock = Atomic<UInt64>(0)
}
