#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

extension Catalog {
    /// Fan-out to the default global queue, joined with a `DispatchGroup`.
    static let groupFanOut = Workload(
        name: "group-fan-out",
        summary: "500k async(group:) tasks onto the global queue, then group.wait(); ns per task",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let count = context.size(500_000, quick: 50_000)
        let global = DispatchQueue.global()
        let group = DispatchGroup()
        let counter = AtomicCounter()
        let (ns, _) = BenchClock.measure {
            for _ in 0..<count {
                global.async(group: group) { counter.add() }
            }
            group.wait()
        }
        try check(counter.value == count, "group-fan-out: \(counter.value) of \(count) tasks ran")
        return [Double(ns) / Double(count)]
    }
}
