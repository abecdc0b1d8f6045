#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

extension Catalog {
    /// Allocation calls per `async`, counted on every thread of the process.
    static let mallocsPerAsync = Workload(
        name: "mallocs-per-async",
        summary: "allocation calls (all threads, interposed malloc) per async onto a serial queue",
        metrics: [MetricSpec(unit: .allocationsPerOp)]
    ) { context in
        try check(Heap.countingWorks, "mallocs-per-async: malloc is not interposed; cannot count")
        let count = context.size(100_000, quick: 20_000)
        let queue = DispatchQueue(label: "bench.mallocs")
        let state = Guarded(SequenceCheck())
        queue.sync {}
        let (allocations, _) = Heap.countAllocations {
            for index in 0..<count {
                queue.async { state.value.record(index) }
            }
            queue.sync {}
        }
        try state.value.verify(expected: count, "mallocs-per-async")
        return [Double(allocations) / Double(count)]
    }
}
