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
    public class func concurrentPerform(iterations: Int, execute work: @Sendable (Int) -> Void) {
        if iterations <= 0 { return }
        let depth = cnv_tls_get_apply_depth()
        if iterations == 1 || depth > 0 {
            cnv_tls_set_apply_depth(depth + 1)
            defer { cnv_tls_set_apply_depth(depth) }
            for index in 0..<iterations { work(index) }
            return
        }
        withoutActuallyEscaping(work) { escapable in
            let apply = ParallelApply(iterations: iterations, work: escapable)
            let helpers = min(WorkerPool.shared.cpuCount, iterations) - 1
            let band = Worker.current?.runningBand ?? .default
            for _ in 0..<helpers { WorkerPool.shared.submit(ParallelApplyHelper(apply: apply, band: band)) }
            cnv_tls_set_apply_depth(depth + 1)
            apply.participate()
            cnv_tls_set_apply_depth(depth)
            apply.waitUntilDone()
        }
    }
}

/// One `concurrentPerform` call: the shared counter of indices and the completion count.
final class ParallelApply: @unchecked Sendable {
    let iterations: Int
    private let participants: Int
    private(set) var work: ((Int) -> Void)?
    private let nextIndex = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    /// Helpers inside `participate()` now; the caller waits for zero before it returns,
    /// so no helper still holds the caller's closure.
    private let active = Atomic<Int>(0)
    private let doneWord = FutexWord(0)

    init(iterations: Int, work: @escaping (Int) -> Void) {
        self.iterations = iterations
        self.participants = min(WorkerPool.shared.cpuCount, iterations)
        self.work = work
    }

    deinit { doneWord.deallocate() }

    /// Helper side: join unless the call is already over.
    func helperParticipate() {
        active.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if nextIndex.load(ordering: .relaxed) < iterations {
            cnv_tls_set_apply_depth(cnv_tls_get_apply_depth() + 1)
            participate()
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
