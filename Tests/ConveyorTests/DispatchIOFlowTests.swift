@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DispatchIOFlowTests {
    @Test func aSlowHandlerBoundsTheDataInFlight() async {
        // In a child process: DataRegion.live counts every region of the process.
        await #expect(processExitsWith: .success) {
            let size = 48 * 1024 * 1024
            let path = makePatternFile(size: size, name: "slowhandler")
            defer { unlink(path) }
            let fd = open(path, O_RDONLY)
            let most = Atomic<Int>(0)
            let total = Atomic<Int>(0)
            let done = DispatchSemaphore(value: 0)
            let channel = DispatchIO(type: .random, fileDescriptor: fd, queue: .global()) { _ in }
            channel.read(offset: 0, length: Int.max, queue: DispatchQueue(label: "slow")) { finished, data, _ in
                let live = DataRegion.live.load(ordering: .relaxed)
                if live > most.load(ordering: .relaxed) { most.store(live, ordering: .relaxed) }
                total.add(data?.count ?? 0, ordering: .relaxed)
                usleep(3_000)
                if finished { done.signal() }
            }
            guard done.wait(timeout: deadline()) == .success else { exit(2) }
            channel.close()
            guard total.load(ordering: .relaxed) == size else { exit(3) }
            // At most the in-flight budget (4 MiB) plus the chunk that crossed it, and the
            // one being read: without the bound, all 48 chunks would pile up.
            exit(most.load(ordering: .relaxed) <= 8 ? 0 : 4)
        }
    }
}
