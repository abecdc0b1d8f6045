import CConveyor
import Synchronization

/// Catches blocking that Conveyor cannot see (a `read`, a foreign lock): when queued work
/// has made no progress for `interval` while every wanted worker is busy, it grants the
/// pool one more runnable thread. It sleeps without a timeout whenever no work is queued,
/// so an idle process uses no CPU.
final class Watchdog: @unchecked Sendable {
    /// How long queued work may wait on busy workers before a thread is added.
    let intervalNanoseconds: Int64 = 10_000_000

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
        while true {
            if !pool.hasVisibleWork(includingLIFO: true) {
                word.store(Self.sleeping)
                if pool.hasVisibleWork(includingLIFO: true) {
                    word.store(Self.awake)
                } else {
                    word.wait(expected: Self.sleeping)
                }
                lastProgress = pool.totalProgress()
                lastWorkerProgress = []
                continue
            }
            // Sleep one interval (the word stays `awake`, so this is a timed sleep).
            word.wait(expected: Self.awake, timeoutNanoseconds: intervalNanoseconds)
            pool.rescueStuckLIFOJobs(lastProgress: &lastWorkerProgress)
            let progress = pool.totalProgress()
            if progress == lastProgress, pool.hasVisibleWork(),
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
