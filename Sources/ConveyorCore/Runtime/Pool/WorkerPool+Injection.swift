// The pool's shared queues, one per priority band: putting jobs on them, and taking
// them off in band order with aging.
extension WorkerPool {
    /// How long a band's shared queue may hold work without being served while more
    /// important bands are served (aging: issue 11, finding 4).
    static let agingNanoseconds: UInt64 = 2_000_000

    /// The most important band's job, unless a less important band has waited longer than
    /// `agingNanoseconds` since it was last served: then that band goes first.
    ///
    /// Invariant: priority orders work but never starves it. Every non-empty band is
    /// served at least once per `agingNanoseconds` of looking (plus one job's run time).
    @inline(__always)
    func popInjection(for worker: Worker) -> Job? {
        var first = -1
        for index in injection.indices where !injectionQueue(index, { $0.isEmpty }) {
            if first < 0 {
                first = index
                continue
            }
            // `lastServed` may be a hair newer than `now` (another thread just served it).
            let now = Clock.monotonicNanoseconds(), lastServed = injectionQueue(index) { $0.lastServedNanoseconds }
            if now > lastServed && now - lastServed > Self.agingNanoseconds,
               let job = injectionQueue(index, { queue in
                   queue.pop(movingUpTo: 0, into: nil).map { wakingAnotherIfWorkRemains($0, after: queue, for: worker) }
               }) {
                return job
            }
        }
        if first < 0 { return nil }
        for index in first..<injection.count {
            let taken = injectionQueue(index) { queue -> Job? in
                guard !queue.isEmpty, let job = queue.pop(movingUpTo: 31, into: worker.local) else { return nil }
                return wakingAnotherIfWorkRemains(job, after: queue, for: worker)
            }
            if let taken { return taken }
        }
        return nil
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
