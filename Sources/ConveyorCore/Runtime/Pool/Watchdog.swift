import CConveyor
import Synchronization

/// Catches blocking that Conveyor cannot see (a `read`, a foreign lock), and jobs left in a
/// busy worker's LIFO slot. It sleeps without a timeout whenever no work is queued, so an
/// idle process uses no CPU.
///
/// - Blocking: every `intervalNanoseconds`, if queued work made no progress while every
///   wanted worker is busy, it looks at what the busy workers' threads are doing. Only a
///   worker asleep in the kernel inside a job (not in a Conveyor wait, which the pool
///   compensates itself) earns the pool one more runnable thread; a worker that computes
///   does not (the invariant that was missing: "no job started for a while" is not
///   "blocked"). The credit follows the blocked count down as those workers wake.
/// - LIFO slots: while any slot holds a job, it looks every `lifoIntervalNanoseconds` and
///   hands the pool a slot whose worker started no job since the last look, so a queue
///   posted from a long job waits about a millisecond, not a blocking interval.
final class Watchdog: @unchecked Sendable {
    /// How long queued work may wait on busy workers before blocked ones are looked for.
    let intervalNanoseconds: Int64 = 10_000_000
    /// How often occupied LIFO slots are looked at.
    let lifoIntervalNanoseconds: Int64 = 500_000

    private static let awake: UInt32 = 0
    private static let sleeping: UInt32 = 1
    private let word = FutexWord(Watchdog.awake)
    private let started = Atomic<Bool>(false)

    init() {}

    func startIfNeeded(pool: WorkerPool) {
        if started.load(ordering: .relaxed) { return }
        if started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            _ = cnv_thread_start({ _ in watchdogThreadEntry() }, nil, 256 * 1024)
        }
    }

    /// Work was queued while all workers were busy: make sure the watchdog is looking.
    ///
    /// Pairs with the sleep in `run`: the watchdog stores `sleeping` and then looks for
    /// work (sequentially consistent); a producer publishes its job and then reads the
    /// word here (sequentially consistent exchange after a sequentially consistent load in
    /// the callers' `notifyWorkAvailable`). Either the watchdog sees the job, or this sees
    /// `sleeping` and wakes it.
    @inline(__always)
    func poke() {
        if word.load() == Self.sleeping, word.exchange(Self.awake) == Self.sleeping {
            word.wake(1)
        }
    }

    func run(pool: WorkerPool) {
        ThreadInfo.setName("conveyor.watch")
        var lastProgress = pool.totalProgress()
        var lastWorkerProgress: [UInt64] = []
        var lastBlockedProgress: [UInt64] = []
        var nextBlockingLook = Clock.monotonicNanoseconds() &+ UInt64(intervalNanoseconds)
        while true {
            if !pool.hasVisibleWork(includingLIFO: true) {
                pool.settleCredit(blocked: pool.foreignBlockedWorkers(lastProgress: &lastBlockedProgress))
                word.store(Self.sleeping)
                if pool.hasVisibleWork(includingLIFO: true) {
                    word.store(Self.awake)
                } else {
                    word.wait(expected: Self.sleeping)
                }
                lastProgress = pool.totalProgress()
                lastWorkerProgress = []
                lastBlockedProgress = []
                nextBlockingLook = Clock.monotonicNanoseconds() &+ UInt64(intervalNanoseconds)
                continue
            }
            // A timed sleep (the word stays `awake`): short while a LIFO slot holds a job.
            let wait = pool.hasLIFOJobs() ? lifoIntervalNanoseconds : intervalNanoseconds
            word.wait(expected: Self.awake, timeoutNanoseconds: wait)
            pool.rescueStuckLIFOJobs(lastProgress: &lastWorkerProgress)
            let now = Clock.monotonicNanoseconds()
            guard now >= nextBlockingLook else { continue }
            nextBlockingLook = now &+ UInt64(intervalNanoseconds)
            let blocked = pool.foreignBlockedWorkers(lastProgress: &lastBlockedProgress)
            pool.settleCredit(blocked: blocked)
            let progress = pool.totalProgress()
            if progress == lastProgress, blocked > pool.credit.load(ordering: .relaxed), pool.hasVisibleWork(),
               pool.running.load(ordering: .relaxed) >= pool.target {
                pool.grantCredit()
            }
            lastProgress = progress
        }
    }
}

private func watchdogThreadEntry() -> UnsafeMutableRawPointer? {
    WorkerPool.shared.watchdog.run(pool: WorkerPool.shared)
    return nil
}
