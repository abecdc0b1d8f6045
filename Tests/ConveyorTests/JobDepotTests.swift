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

@testable import ConveyorCore
import Testing

/// The shared store of recycled jobs: a batch waits in quarantine behind `reuseDistance`
/// later ones, then is handed out newest first; the depot grows to hold a burst's
/// backlog, up to its cap, and goes back to what it keeps for good when trimmed.
@Suite struct JobDepotTests {
    private static let batch = JobStack.batchSize

    /// Gives `count` batches of fresh jobs to `depot`, as a thread's stack would hand
    /// them over, and returns each batch's first job, in the order given.
    @discardableResult
    private static func give(_ count: Int, to depot: JobDepot) -> [UnsafeMutableRawPointer] {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: batch)
        defer { slots.deallocate() }
        var firsts: [UnsafeMutableRawPointer] = []
        for _ in 0..<count {
            for index in 0..<batch {
                let job = ClosureJob.make(band: .default, isBarrier: false, group: nil, body: {})
                slots[index] = Unmanaged<RecycledJob>.passRetained(job).toOpaque()
            }
            firsts.append(slots[0])
            depot.giveBatch(from: slots)
        }
        return firsts
    }

    /// Takes every batch the depot hands out and returns each one's first job, in order
    /// (the jobs are freed).
    private static func takeAll(from depot: JobDepot) -> [UnsafeMutableRawPointer] {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: batch)
        defer { slots.deallocate() }
        var firsts: [UnsafeMutableRawPointer] = []
        while depot.takeBatch(into: slots) == batch {
            firsts.append(slots[0])
            JobDepot.release(slots, count: batch)
        }
        return firsts
    }

    /// A batch is handed out only after `reuseDistance` later batches came in behind it;
    /// of those out of quarantine, the one that left it last goes first.
    @Test func handsOutOnlyBatchesThatLeftTheQuarantineNewestFirst() {
        let depot = JobDepot()
        let given = Self.give(JobDepot.reuseDistance + 2, to: depot)
        #expect(depot.availableBatches == 2)
        #expect(Self.takeAll(from: depot) == [given[1], given[0]])
        #expect(depot.heldBatches == JobDepot.reuseDistance)
        // One more batch given lets the oldest in quarantine out.
        Self.give(1, to: depot)
        #expect(Self.takeAll(from: depot) == [given[2]])
    }

    /// The quarantine ring wraps around and the stack grows, without losing the order.
    @Test func keepsTheOrderAcrossWrapAndGrowth() {
        let depot = JobDepot()
        var given = Self.give(JobDepot.keptBatches - 56, to: depot)
        let early = Self.takeAll(from: depot)   // the 72 out of quarantine, which now starts at 72
        #expect(early == Array(given.prefix(72).reversed()))
        given += Self.give(150, to: depot)       // wraps, and stacks 150: more than its first capacity
        #expect(depot.heldBatches == JobDepot.reuseDistance + 150)
        #expect(Self.takeAll(from: depot) == Array(given[72..<222].reversed()))
        #expect(depot.heldBatches == JobDepot.reuseDistance)
    }

    @Test func holdsABurstAboveWhatItKeepsThenTrimsBack() {
        let depot = JobDepot()
        let burst = JobDepot.keptBatches + 100
        let given = Self.give(burst, to: depot)
        #expect(depot.heldBatches == burst)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.keptBatches)
        // The trim freed the batches that waited longest; the rest is intact.
        let stacked = burst - JobDepot.reuseDistance
        let keptOnStack = JobDepot.keptBatches - JobDepot.reuseDistance
        #expect(Self.takeAll(from: depot) == Array(given[(stacked - keptOnStack)..<stacked].reversed()))
        #expect(depot.heldBatches == JobDepot.reuseDistance)
    }

    /// A depot grown by a burst and then mostly emptied shrinks back, keeping every job
    /// it still holds.
    @Test func trimsAGrownDepotHoldingLessThanItKeeps() {
        let depot = JobDepot()
        let given = Self.give(JobDepot.keptBatches + 40, to: depot)
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: Self.batch)
        defer { slots.deallocate() }
        for _ in 0..<100 {
            #expect(depot.takeBatch(into: slots) == Self.batch)
            JobDepot.release(slots, count: Self.batch)
        }
        let left = JobDepot.keptBatches + 40 - JobDepot.reuseDistance - 100
        #expect(depot.heldBatches == JobDepot.reuseDistance + left)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.reuseDistance + left)
        #expect(Self.takeAll(from: depot) == Array(given.prefix(left).reversed()))
        // Full again up to what it keeps, it takes a burst above that once more.
        Self.give(JobDepot.keptBatches + 1, to: depot)
        #expect(depot.heldBatches == JobDepot.reuseDistance + JobDepot.keptBatches + 1)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.keptBatches)
    }

    @Test func freesWhatComesBeyondItsCap() {
        let depot = JobDepot()
        Self.give(JobDepot.maxBatches + 3, to: depot)
        #expect(depot.heldBatches == JobDepot.maxBatches)
        depot.trimToKept()
        #expect(depot.heldBatches == JobDepot.keptBatches)
    }
}
