import Testing
@testable import ConveyorCore

@Suite struct TimerHeapTests {
    /// Random schedules, moves and frees keep both heaps valid, and expired timers come
    /// out in deadline order, first-in first-out among equal deadlines.
    @Test func randomOperationsKeepTheHeapsValid() {
        var heap = TimerHeap()
        var generator = SystemRandomNumberGenerator()
        var live: [UInt32] = []
        for _ in 0..<5_000 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let (slot, _) = heap.allocate { _ in }
                heap.schedule(slot, deadline: UInt64.random(in: 0..<1_000, using: &generator),
                              leeway: UInt64.random(in: 0..<100, using: &generator))
                live.append(slot)
            case 6..<8 where !live.isEmpty:
                let slot = live.randomElement(using: &generator)!
                heap.schedule(slot, deadline: UInt64.random(in: 0..<1_000, using: &generator), leeway: 0)
            case 8..<10 where !live.isEmpty:
                let index = Int.random(in: 0..<live.count, using: &generator)
                _ = heap.free(live.remove(at: index))
            default:
                break
            }
        }
        #expect(heap.checkInvariants())
        #expect(heap.count == live.count)
        if let next = heap.nextFireTime {
            #expect(live.allSatisfy { heap.slots[Int($0)].latest >= next })
        }
        var previous: (deadline: UInt64, sequence: UInt64) = (0, 0)
        var popped = 0
        while let (slot, _) = heap.popExpired(now: .max) {
            let entry = heap.slots[Int(slot)]
            #expect((entry.deadline, entry.sequence) > previous || popped == 0)
            previous = (entry.deadline, entry.sequence)
            popped += 1
        }
        #expect(popped == live.count)
        #expect(heap.checkInvariants())
    }

    @Test func popExpiredStopsAtTheFirstFutureDeadline() {
        var heap = TimerHeap()
        for deadline: UInt64 in [30, 10, 20] {
            let (slot, _) = heap.allocate { _ in }
            heap.schedule(slot, deadline: deadline, leeway: 5)
        }
        #expect(heap.nextFireTime == 15)
        #expect(heap.popExpired(now: 25) != nil)
        #expect(heap.popExpired(now: 25) != nil)
        #expect(heap.popExpired(now: 25) == nil)
        #expect(heap.nextFireTime == 35)
    }

    @Test func freedSlotsMakeHandlesStale() {
        var heap = TimerHeap()
        let (slot, generation) = heap.allocate { _ in }
        heap.schedule(slot, deadline: 1, leeway: 0)
        _ = heap.free(slot)
        #expect(!heap.isCurrent(slot: slot, generation: generation))
        let (again, newGeneration) = heap.allocate { _ in }
        #expect(again == slot && newGeneration != generation)
        #expect(heap.count == 0)
    }
}
