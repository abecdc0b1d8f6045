//===----------------------------------------------------------------------===//
//
// This source file is part of the Conveyor open source project
//
// Copyright (c) 2026 the Conveyor project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
            // Inside every window it fires, and no earlier than the earliest deadline.
            #expect(live.allSatisfy { heap.slots[Int($0)].latest >= next })
            #expect(live.contains { heap.slots[Int($0)].deadline <= next })
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
        // Windows [10, 15], [20, 25], [30, 35]: none overlaps another, so each fires alone
        // at its deadline.
        #expect(heap.nextFireTime == 10)
        #expect(heap.popExpired(now: 25) != nil)
        #expect(heap.popExpired(now: 25) != nil)
        #expect(heap.popExpired(now: 25) == nil)
        #expect(heap.nextFireTime == 30)
    }

    /// Leeway is a window for coalescing, not a delay: a timer with nothing to share a
    /// wake-up with rings at its deadline, however wide its window (issue 25, finding 9:
    /// it rang at deadline + leeway, every time).
    @Test func aLoneTimerRingsAtItsDeadline() {
        var heap = TimerHeap()
        let (slot, _) = heap.allocate { _ in }
        heap.schedule(slot, deadline: 1_000, leeway: 10_000_000_000)
        #expect(heap.nextFireTime == 1_000)
        // A timer whose window opens after the first one's closes does not change that.
        let (later, _) = heap.allocate { _ in }
        heap.schedule(later, deadline: 20_000_000_000, leeway: 5)
        #expect(heap.nextFireTime == 1_000)
    }

    /// Timers whose windows overlap ring together at the last deadline that lies in all
    /// of their windows; a timer whose deadline comes after the earliest window end waits
    /// for a later ring.
    @Test func overlappingWindowsRingAtTheLastDeadlineInsideAllOfThem() {
        var heap = TimerHeap()
        for (deadline, leeway): (UInt64, UInt64) in [(10, 100), (40, 15), (50, 100), (56, 0)] {
            let (slot, _) = heap.allocate { _ in }
            heap.schedule(slot, deadline: deadline, leeway: leeway)
        }
        // Earliest window end 55 (the second timer's): deadlines 10, 40 and 50 lie before it.
        #expect(heap.nextFireTime == 50)
        for _ in 0..<3 { #expect(heap.popExpired(now: 50) != nil) }
        #expect(heap.popExpired(now: 50) == nil)
        #expect(heap.nextFireTime == 56)
    }

    /// A group too large to search rings at the earliest window end: still inside every
    /// window, never before any deadline it fires.
    @Test func aLargeGroupRingsAtTheEarliestWindowEnd() {
        var heap = TimerHeap()
        let count = TimerHeap.fireTimeSearchLimit * 4
        for index in 0..<count {
            let (slot, _) = heap.allocate { _ in }
            heap.schedule(slot, deadline: UInt64(index), leeway: 1_000)
        }
        #expect(heap.nextFireTime == 1_000)
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
