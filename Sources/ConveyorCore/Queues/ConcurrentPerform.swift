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

extension DispatchQueue {
    /// Runs `work` once for each index in `0..<iterations`, in parallel, and returns when
    /// every call has returned. The calling thread takes part, so the call finishes even
    /// when no other thread is free; indices are handed out in chunks that shrink as the
    /// end nears. A nested call (from inside `work`) runs its indices on the calling thread.
    ///
    /// The iterations run as work of the global queue of the caller's QoS, as with
    /// libdispatch: inside them `DispatchQueue.getSpecific(key:)` sees that queue's values,
    /// not those of a queue the caller runs on.
    @preconcurrency public class func concurrentPerform(iterations: Int, execute work: @Sendable (Int) -> Void) {
        concurrentPerform(iterations: iterations, onGlobal: root(for: Worker.current?.runningBand ?? .default), execute: work)
    }

    /// `dispatch_apply` on a global queue (or `DISPATCH_APPLY_AUTO`, the global queue of
    /// the caller's band): every iteration runs as that queue's work, as on libdispatch,
    /// whose apply pushes the queue: the current queue's label, specifics and
    /// `dispatch_get_current_queue` are the global queue's there, the caller's and the
    /// helpers' alike, not those of the queue the caller runs on.
    static func concurrentPerform(iterations: Int, onGlobal global: DispatchQueue, execute work: (Int) -> Void) {
        DrainFrame.with(global, exclusive: false) {
            perform(iterations: iterations, band: global.band, helpersInside: { participate in
                DrainFrame.with(global, exclusive: false) { participate() }
            }, work)
        }
    }

    /// `dispatch_apply` on a concurrent queue the program made: every thread taking part
    /// holds a unit of the width of `queue` and of every level of its targets while it
    /// runs iterations, with their frames, so the iterations see the queue's specifics and
    /// `dispatchPrecondition(.onQueue(queue))`, wait for its barriers and keep within its
    /// width and its targets' limits, as libdispatch's do. A thread that already holds
    /// the queue alone (a barrier on it) runs them one after another itself.
    ///
    /// The caller takes its units in `sync`, waiting like any other caller; helpers never
    /// wait (a helper that waited for width the caller's own block holds would never let
    /// the call end): each takes a unit of every level at once or stays out, and where a
    /// level is serial (or the main queue) there are no helpers, as libdispatch reserves
    /// the width it can get.
    static func concurrentPerform(iterations: Int, on queue: DispatchQueue, execute work: (Int) -> Void) {
        if queue.currentThreadHolding(queue) == .exclusive {
            for index in 0..<iterations { work(index) }
            return
        }
        var levels: [DispatchQueue] = []
        var level: DispatchQueue? = queue
        while let current = level, current.kind != .root {
            guard current.kind == .concurrent else {
                levels = []
                break
            }
            levels.append(current)
            level = current.targetQueue
        }
        queue.sync {
            perform(iterations: iterations, band: Worker.current?.runningBand ?? .default, helpersInside: { participate in
                if !levels.isEmpty { enterWithoutWaiting(levels[...], participate) }
            }, work)
        }
    }

    /// Takes one unit of width of each of `levels` (innermost first) without waiting and
    /// runs `body` with a frame for each; gives up (running nothing) if one is not free.
    private static func enterWithoutWaiting(_ levels: ArraySlice<DispatchQueue>, _ body: () -> Void) {
        guard let outer = levels.last else { return body() }
        guard outer.tryReserveWidth() else { return }
        defer { outer.itemCompleted() }
        DrainFrame.with(outer, exclusive: false) { enterWithoutWaiting(levels.dropLast(), body) }
    }

    /// `concurrentPerform` on the calling thread and helpers; each helper's share runs
    /// through `helpersInside` when given (which may run it, or not at all).
    private static func perform(iterations: Int, band: QoSBand, helpersInside: ((() -> Void) -> Void)?, _ work: (Int) -> Void) {
        if iterations <= 0 { return }
        let depth = cnv_tls_get_apply_depth()
        if iterations == 1 || depth > 0 {
            cnv_tls_set_apply_depth(depth + 1)
            defer { cnv_tls_set_apply_depth(depth) }
            for index in 0..<iterations { work(index) }
            return
        }
        withoutActuallyEscaping(work) { escapable in
            withoutActuallyEscaping(helpersInside ?? { $0() }) { enter in
                let apply = ParallelApply(iterations: iterations, work: escapable, inside: enter)
                let helpers = min(WorkerPool.shared.cpuCount, iterations) - 1
                for _ in 0..<helpers { WorkerPool.shared.submit(ParallelApplyHelper(apply: apply, band: band)) }
                cnv_tls_set_apply_depth(depth + 1)
                apply.participate()
                cnv_tls_set_apply_depth(depth)
                apply.waitUntilDone()
            }
        }
    }
}

/// One `concurrentPerform` call: the shared counter of indices and the completion count.
final class ParallelApply: @unchecked Sendable {
    let iterations: Int
    private let participants: Int
    private(set) var work: ((Int) -> Void)?
    /// How a helper enters the queue the iterations run on (or runs its share directly;
    /// or does not, when it cannot enter without waiting); dropped with `work`.
    private var inside: ((() -> Void) -> Void)?
    private let nextIndex = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    /// Helpers inside `participate()` now; the caller waits for zero before it returns,
    /// so no helper still holds the caller's closure.
    private let active = Atomic<Int>(0)
    private let doneWord = FutexWord(0)

    init(iterations: Int, work: @escaping (Int) -> Void, inside: @escaping (() -> Void) -> Void) {
        self.iterations = iterations
        self.participants = min(WorkerPool.shared.cpuCount, iterations)
        self.work = work
        self.inside = inside
    }

    deinit { doneWord.deallocate() }

    /// Helper side: join unless the call is already over.
    func helperParticipate() {
        active.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if nextIndex.load(ordering: .relaxed) < iterations {
            cnv_tls_set_apply_depth(cnv_tls_get_apply_depth() + 1)
            inside! { participate() }
            cnv_tls_set_apply_depth(cnv_tls_get_apply_depth() - 1)
        }
        if active.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
            doneWord.store(1)
            doneWord.wakeAll()
        }
    }

    /// Takes chunks of indices and runs them until none are left.
    @inline(never)
    func participate() {
        while true {
            let start = nextIndex.load(ordering: .relaxed)
            if start >= iterations { return }
            let chunk = max(1, (iterations - start) / (participants * 4))
            let claimed = nextIndex.wrappingAdd(chunk, ordering: .relaxed).oldValue
            if claimed >= iterations { return }
            let end = min(claimed + chunk, iterations)
            let body = work!
            for index in claimed..<end { body(index) }
            if completed.wrappingAdd(end - claimed, ordering: .acquiringAndReleasing).newValue == iterations {
                doneWord.store(1)
                doneWord.wakeAll()
            }
        }
    }

    /// Caller side: wait until every index ran and no helper is inside, then drop the closure.
    func waitUntilDone() {
        var spins = 0
        while !isDone() {
            if spins < 1000 {
                spins += 1
                cnv_cpu_relax()
                continue
            }
            doneWord.store(0)
            if isDone() { break }
            withBlockingHint { _ = doneWord.wait(expected: 0, timeoutNanoseconds: 1_000_000) }
        }
        work = nil
        inside = nil
    }

    private func isDone() -> Bool {
        completed.load(ordering: .acquiring) == iterations && active.load(ordering: .sequentiallyConsistent) == 0
    }
}

/// The job that lets a pool worker join a `concurrentPerform`.
final class ParallelApplyHelper: Job, @unchecked Sendable {
    let apply: ParallelApply

    init(apply: ParallelApply, band: QoSBand) {
        self.apply = apply
        super.init(band: band)
    }

    override func run(on queue: DispatchQueue?) {
        apply.helperParticipate()
    }
}
