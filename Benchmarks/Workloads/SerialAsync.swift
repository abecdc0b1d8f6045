#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

extension Catalog {
    /// Throughput of one serial queue: many small `async` tasks, drained in FIFO order.
    static let serialAsync = Workload(
        name: "serial-async",
        summary: "1M async tasks onto one serial queue (FIFO checked); ns per task",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let count = context.size(1_000_000, quick: 100_000)
        let queue = DispatchQueue(label: "bench.serial-async")
        let state = Guarded(SequenceCheck())
        let (ns, _) = BenchClock.measure {
            for index in 0..<count {
                queue.async { state.value.record(index) }
            }
            queue.sync {}
        }
        try state.value.verify(expected: count, "serial-async")
        return [Double(ns) / Double(count)]
    }
}
