import CConveyor
@testable import ConveyorCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct GlobalQueueOrderTests {
    /// Tasks a worker submits to a global queue start in the order submitted, even on a
    /// one-CPU pool where the submitting worker runs them all itself (the LIFO slot is only
    /// for queues being scheduled, never for plain tasks).
    @Test func tasksSubmittedFromAWorkerStartInOrder() async {
        await #expect(processExitsWith: .exitCode(0)) {
            guard cnv_pin_to_first_cpu() == 0, WorkerPool.shared.cpuCount == 1 else { exit(2) }
            let log = TestLog<Int>()
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                for i in 0..<100 {
                    DispatchQueue.global().async {
                        log.append(i)
                        if i == 99 { done.signal() }
                    }
                }
            }
            guard done.wait(timeout: .now() + 30) == .success else { exit(3) }
            exit(log.values == Array(0..<100) ? 0 : 4)
        }
    }
}
