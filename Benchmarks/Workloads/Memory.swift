#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

// Heap bytes are malloc's own count of bytes in use (mallinfo2: uordblks + hblkhd, all
// arenas), read on the calling thread before and after. Thread stacks are not included.

extension Catalog {
    /// Heap bytes one freshly created, unused serial queue costs.
    static let memoryPerIdleQueue = Workload(
        name: "memory-idle-queue",
        summary: "heap bytes (mallinfo2) per created, idle serial queue; 10,000 queues",
        metrics: [MetricSpec(unit: .bytes)]
    ) { context in
        let count = context.size(10_000, quick: 2_000)
        var queues: [DispatchQueue] = []
        queues.reserveCapacity(count)
        let before = Heap.bytesInUse()
        for _ in 0..<count {
            queues.append(DispatchQueue(label: "bench.idle"))
        }
        let after = Heap.bytesInUse()
        let ran = Guarded(0)
        for queue in queues {
            queue.sync { ran.value += 1 }
        }
        try check(ran.value == count, "memory-idle-queue: only \(ran.value) of \(count) queues ran a task")
        return [Double(after - before) / Double(count)]
    }

    /// Heap bytes one `async` task costs while it waits in a suspended serial queue.
    static let memoryPerPendingTask = Workload(
        name: "memory-pending-task",
        summary: "heap bytes (mallinfo2) per async task pending on a suspended serial queue; 100,000 tasks",
        metrics: [MetricSpec(unit: .bytes)]
    ) { context in
        let count = context.size(100_000, quick: 20_000)
        let queue = DispatchQueue(label: "bench.pending")
        let state = Guarded(SequenceCheck())
        queue.suspend()
        let before = Heap.bytesInUse()
        for index in 0..<count {
            queue.async { state.value.record(index) }
        }
        let after = Heap.bytesInUse()
        queue.resume()
        queue.sync {}
        try state.value.verify(expected: count, "memory-pending-task")
        return [Double(after - before) / Double(count)]
    }
}
