@testable import ConveyorCore
import Testing

/// The shared store of recycled jobs: it grows to hold a burst's backlog, up to its cap,
/// and goes back to what it keeps for good when trimmed.
@Suite struct JobDepotTests {
    private static let batch = JobStack.batchSize

    /// `count` batches of fresh jobs, as a thread's stack would hand them over.
    private static func withBatches(_ count: Int, _ body: (UnsafeMutablePointer<UnsafeMutableRawPointer>) -> Void) {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: batch)
        defer { slots.deallocate() }
        for _ in 0..<count {
            for index in 0..<batch {
                let job = ClosureJob.make(band: .default, isBarrier: false, group: nil, body: {})
                slots[index] = Unmanaged<RecycledJob>.passRetained(job).toOpaque()
            }
            body(slots)
        }
    }

    @Test func holdsABurstAboveWhatItKeepsThenTrimsBack() {
        let depot = JobDepot()
        let burst = JobDepot.keptBatches + 100
        Self.withBatches(burst) { depot.giveBatch(from: $0) }
        #expect(depot.heldBatches == burst)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.keptBatches)
        // What is left is intact: every batch can be taken, and then the depot is empty.
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: Self.batch)
        defer { slots.deallocate() }
        var taken = 0
        while depot.takeBatch(into: slots) == Self.batch {
            JobDepot.release(slots, count: Self.batch)
            taken += 1
        }
        #expect(taken == JobDepot.keptBatches)
        #expect(depot.heldBatches == 0)
    }

    /// A depot grown by a burst and then mostly emptied shrinks back, keeping every job
    /// it still holds.
    @Test func trimsAGrownDepotHoldingLessThanItKeeps() {
        let depot = JobDepot()
        Self.withBatches(JobDepot.keptBatches + 40) { depot.giveBatch(from: $0) }
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: Self.batch)
        defer { slots.deallocate() }
        for _ in 0..<(JobDepot.keptBatches + 30) {
            #expect(depot.takeBatch(into: slots) == Self.batch)
            JobDepot.release(slots, count: Self.batch)
        }
        #expect(depot.heldBatches == 10)
        depot.trimToKept()
        #expect(depot.heldBatches == 10)
        var taken = 0
        while depot.takeBatch(into: slots) == Self.batch {
            JobDepot.release(slots, count: Self.batch)
            taken += 1
        }
        #expect(taken == 10)
        // Full again up to what it keeps, it takes a burst above that once more.
        Self.withBatches(JobDepot.keptBatches + 1) { depot.giveBatch(from: $0) }
        #expect(depot.heldBatches == JobDepot.keptBatches + 1)
        depot.trimToKept()
    }

    @Test func freesWhatComesBeyondItsCap() {
        let depot = JobDepot()
        Self.withBatches(JobDepot.maxBatches + 3) { depot.giveBatch(from: $0) }
        #expect(depot.heldBatches == JobDepot.maxBatches)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.keptBatches)
    }
}
