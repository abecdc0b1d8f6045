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

/// A worker's combined group leaves.
///
/// In a burst of `dispatch_group_async` work every job leaves the same group, and each
/// leave was an atomic add on the group's line, which the submitting thread's `enter`
/// writes too: the line crossed between the two cores twice per job (a quarter of the
/// submitting thread's time in the C API's group workload, and a miss per job on the
/// worker). A worker that runs jobs of one group back to back from its own ring holds
/// their leaves and adds them in one step before it runs a job not of that group (a
/// queue's drain from its LIFO slot included), and before it takes work from a shared
/// queue or another worker's ring, searches, parks, retires or leaves the pool.
///
/// Invariant: holding a leave never changes when a group empties. A leave is held only
/// while this worker runs another job of the same group taken from its own ring, and
/// every job in that ring was there (moved in with a batch, or pushed by this worker's
/// own jobs) before the job whose leave is held ended: such a job of the group entered
/// it while the held job was still in it, so the group could not have emptied at the
/// held leave, and it cannot empty before that job ends. No `wait` or `notify` sees the
/// difference (a job of the group that waits for the group itself deadlocks with or
/// without the hold). A job from a shared queue may have entered the group after the
/// held job ended (its submitter saw that job finish), so the hold is given before
/// taking from one.
///
/// What a hold does change is which thread submits a notify, and from where: the last
/// leave is given by this worker between jobs (before it searches, parks or runs the
/// next job), not at the end of a job. Work submitted between jobs must therefore not
/// rely on this worker coming back for it: `WorkerPool.submit` fills the LIFO slot only
/// from a running job, and `findJob` looks at its own ring again after giving the hold
/// (issue 25, finding 1: a group's notify on a serial queue sat in the slot of a worker
/// about to park, and never ran).
extension Worker {
    /// Owes one leave of `group`: adds it to the held ones, releasing a hold on another group first.
    @inline(__always)
    func leaveLater(_ group: Unmanaged<DispatchGroup>) {
        if let held = heldLeavesGroup, held.toOpaque() != group.toOpaque() { releaseHeldLeaves() }
        heldLeavesGroup = group
        heldLeaves += 1
    }

    /// Releases the held leaves unless `job` (about to run on this worker, from its own
    /// ring: `findJob` released them before looking anywhere else) is of the held group.
    @inline(__always)
    func releaseHeldLeaves(unlessRunning job: Job) {
        if job.redirectQueue == nil, let group = job.groupLeftByWorker,
           group.toOpaque() == heldLeavesGroup?.toOpaque() {
            return
        }
        releaseHeldLeaves()
    }

    /// Leaves the held group as many times as held, in one atomic step.
    @inline(__always)
    func releaseHeldLeaves() {
        guard let group = heldLeavesGroup else { return }
        let count = heldLeaves
        heldLeavesGroup = nil
        heldLeaves = 0
        group._withUnsafeGuaranteedRef { $0.leave(count: count) }
    }
}
