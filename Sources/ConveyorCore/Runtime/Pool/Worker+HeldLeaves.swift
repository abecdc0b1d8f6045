/// A worker's combined group leaves.
///
/// In a burst of `dispatch_group_async` work every job leaves the same group, and each
/// leave was an atomic add on the group's line, which the submitting thread's `enter`
/// writes too: the line crossed between the two cores twice per job (a quarter of the
/// submitting thread's time in the C API's group workload, and a miss per job on the
/// worker). A worker that runs jobs of one group back to back holds their leaves and adds
/// them in one step when the next job is not of that group, or before it searches, parks,
/// retires or leaves the pool.
///
/// Invariant: holding a leave never changes when a group empties. The leaves are held
/// only while this worker runs another job of the same group, which is itself in the
/// group: the group cannot empty before that job ends, whatever the held count, so no
/// `wait` or `notify` sees the difference (a job of the group that waits for the group
/// itself deadlocks with or without the hold). Between jobs, the hold lasts one pass of
/// taking the next job from the worker's own ring, the LIFO slot or a shared queue
/// (`findJob` releases it before it searches).
extension Worker {
    /// Owes one leave of `group`: adds it to the held ones, releasing a hold on another group first.
    @inline(__always)
    func leaveLater(_ group: Unmanaged<DispatchGroup>) {
        if let held = heldLeavesGroup, held.toOpaque() != group.toOpaque() { releaseHeldLeaves() }
        heldLeavesGroup = group
        heldLeaves += 1
    }

    /// Releases the held leaves unless `job` (about to run on this worker, straight from
    /// the pool) is of the held group.
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
