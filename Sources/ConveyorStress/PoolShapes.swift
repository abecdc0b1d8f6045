import Conveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Shapes the pool must handle without help, run before the mixed traffic (their checks
/// need a quiet process):
/// - CPU-bound bursts: many long computations add no threads (a computing worker is not
///   blocked), so the thread count stays within the workers, the watchdog and the event
///   thread;
/// - mixed QoS under saturation: while default and user-interactive work keeps every CPU
///   busy from a thread outside the pool, utility and background work still starts (aging).
struct PoolShapes {
    let ledger: Ledger

    func run(cpus: Int) {
        cpuBoundBursts(cpus: cpus)
        mixedQoSUnderSaturation()
    }

    private func spin(nanoseconds: UInt64) {
        let end = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    private func cpuBoundBursts(cpus: Int) {
        for burst in 0..<3 {
            let before = ProcessStats.threadCount()
            let group = DispatchGroup()
            for _ in 0..<(cpus * 8) {
                DispatchQueue.global().async(group: group) {
                    self.spin(nanoseconds: 40_000_000)
                    self.ledger.taskRan()
                }
            }
            var peak = before
            while group.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
                peak = max(peak, ProcessStats.threadCount())
            }
            ledger.check(peak - before <= cpus + 2,
                         "CPU-bound burst \(burst): threads grew from \(before) to \(peak) on \(cpus) CPUs")
        }
    }

    /// The feeder's state, shared with the tasks it submits.
    private final class Feed: Sendable {
        let stop = Atomic<Bool>(false)
        let pending = Atomic<Int>(0)
    }

    private func mixedQoSUnderSaturation() {
        let feed = Feed()
        let feeder = ProducerThread { [ledger] in
            var turn = 0
            while !feed.stop.load(ordering: .relaxed) {
                guard feed.pending.load(ordering: .relaxed) < 2_000 else { continue }
                feed.pending.add(1, ordering: .relaxed)
                turn += 1
                DispatchQueue.global(qos: turn % 2 == 0 ? .default : .userInteractive).async {
                    let end = DispatchTime.now().uptimeNanoseconds &+ 100_000
                    while DispatchTime.now().uptimeNanoseconds < end {}
                    feed.pending.subtract(1, ordering: .relaxed)
                    ledger.taskRan()
                }
            }
        }
        while feed.pending.load(ordering: .relaxed) < 2_000 {}
        for qos in [DispatchQoS.QoSClass.utility, .background] {
            let started = DispatchSemaphore(value: 0)
            DispatchQueue.global(qos: qos).async { started.signal() }
            ledger.check(started.wait(timeout: .now() + 5) == .success,
                         "a \(qos) task did not start within 5 s while higher bands were saturated")
        }
        feed.stop.store(true, ordering: .relaxed)
        feeder.join()
        while feed.pending.load(ordering: .relaxed) > 0 { usleep(1000) }
    }
}
