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

import CConveyor
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// A concurrent queue's width limit (`dispatch_queue_set_width`): how many of its items,
/// `sync` callers included, run at once. The items here block, so without the limit the
/// pool would replace each one and start them all.
@Suite struct QueueWidthTests {
    /// Items that block inside the queue until released, counting how many are inside.
    final class Inside: @unchecked Sendable {
        let count = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)

        func body() {
            let now = count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
            var seen = peak.load(ordering: .relaxed)
            while now > seen, !peak.compareExchange(expected: seen, desired: now, ordering: .relaxed).exchanged {
                seen = peak.load(ordering: .relaxed)
            }
            started.signal()
            gate.wait()
            count.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            done.signal()
        }

        /// Waits for `count` starts; false if they did not come by the deadline.
        func awaitStarts(_ count: Int) -> Bool {
            let deadline = deadline()
            for _ in 0..<count where started.wait(timeout: deadline) == .timedOut { return false }
            return true
        }
    }

    @Test func widthsAreReadAsLibdispatchReadsThem() {
        #expect(DispatchQueue.widthLimit(requested: 0) == 1)
        #expect(DispatchQueue.widthLimit(requested: 1) == 1)
        #expect(DispatchQueue.widthLimit(requested: 7) == 7)
        #expect(DispatchQueue.widthLimit(requested: 4093) == 4093)
        #expect(DispatchQueue.widthLimit(requested: 4094) == 0)
        #expect(DispatchQueue.widthLimit(requested: .max) == 0)
        for relativeToCPUs: Int32 in [-1, -2, -3, -100] {
            #expect(DispatchQueue.widthLimit(requested: relativeToCPUs) == 0)
        }
    }

    /// The C entry point gives a concurrent queue the limit its width reads as, and
    /// accepts a serial queue's own width.
    @Test func theCEntryPointSetsTheLimit() throws {
        let handle = try #require(cnv_dispatch_queue_create("c-width", CQueueAttributes(concurrent: true).handle))
        let queue = CObject.queue(handle, "test")
        for (width, limit) in [(2, 2), (0, 1), (-3, 0), (4093, 4093), (5000, 0), ((1 << 32) + 2, 2), (Int.max, 0)] as [(Int, UInt16)] {
            cnv_dispatch_queue_set_width(handle, width)   // libdispatch reads the low 32 bits: 2, and -1 for Int.max
            #expect(queue.widthLimit.load(ordering: .relaxed) == limit, "width \(width)")
        }
        let serial = try #require(cnv_dispatch_queue_create("c-serial-width", nil))
        cnv_dispatch_queue_set_width(serial, 1)
        cnv_dispatch_queue_set_width(serial, 0)
        cnv_dispatch_release(serial)
        cnv_dispatch_release(handle)
    }

    @Test func aSerialQueueWiderThanOneTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_dispatch_queue_set_width(cnv_dispatch_queue_create("serial", nil), 4)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("dispatch_queue_set_width(4) on a serial queue; a serial queue's width is 1"))
    }

    /// Width 3: `async` items and `sync` callers (from other threads) together never have
    /// more than 3 inside, and with 3 blocked inside the next one starts only when one
    /// returns. Each release lets exactly one more in.
    @Test func aFixedWidthBoundsAsyncItemsAndSyncCallersThatBlock() {
        let queue = DispatchQueue(label: "width-3", attributes: .concurrent)
        queue.setWidthLimit(3)
        let inside = Inside()
        let total = 30
        for index in 0..<total {
            if index % 3 == 2 {
                DispatchQueue.global().async { queue.sync { inside.body() } }
            } else {
                queue.async { inside.body() }
            }
        }
        #expect(inside.awaitStarts(3))
        for _ in 3..<total {
            inside.gate.signal()
            #expect(inside.awaitStarts(1))
        }
        for _ in 0..<3 { inside.gate.signal() }
        let end = deadline()
        for _ in 0..<total { #expect(inside.done.wait(timeout: end) == .success) }
        #expect(inside.peak.load(ordering: .relaxed) == 3)
    }

    /// Widening the limit starts the queued items at once.
    @Test func aWiderLimitStartsQueuedItems() {
        let queue = DispatchQueue(label: "widened", attributes: .concurrent)
        queue.setWidthLimit(1)
        let inside = Inside()
        for _ in 0..<5 { queue.async { inside.body() } }
        #expect(inside.awaitStarts(1))
        queue.setWidthLimit(5)
        #expect(inside.awaitStarts(4))
        for _ in 0..<5 { inside.gate.signal() }
        let end = deadline()
        for _ in 0..<5 { #expect(inside.done.wait(timeout: end) == .success) }
        #expect(inside.peak.load(ordering: .relaxed) == 5)
    }

    /// A barrier still runs alone, after the items ahead of it, under a limit.
    @Test func aBarrierRunsAloneUnderALimit() {
        let queue = DispatchQueue(label: "width-2-barrier", attributes: .concurrent)
        queue.setWidthLimit(2)
        let inside = Inside()
        let barrierSaw = Atomic<Int>(-1)
        for _ in 0..<4 { queue.async { inside.body() } }
        queue.async(flags: .barrier) { barrierSaw.store(inside.count.load(ordering: .sequentiallyConsistent), ordering: .relaxed) }
        for _ in 0..<4 { queue.async { inside.body() } }
        for _ in 0..<8 {
            #expect(inside.awaitStarts(1))
            inside.gate.signal()
        }
        let end = deadline()
        for _ in 0..<8 { #expect(inside.done.wait(timeout: end) == .success) }
        queue.sync(flags: .barrier) {}
        #expect(barrierSaw.load(ordering: .relaxed) == 0)
        #expect(inside.peak.load(ordering: .relaxed) <= 2)
    }

    /// The width Swift concurrency's runtime sets (relative to the CPUs) sets no limit:
    /// 64 items that block until all 64 started all start.
    @Test func aWidthRelativeToTheCPUsLetsSixtyFourBlockedItemsStart() {
        let queue = DispatchQueue(label: "cooperative", attributes: .concurrent)
        queue.setWidthLimit(DispatchQueue.widthLimit(requested: -3))
        let inside = Inside()
        for _ in 0..<64 { queue.async { inside.body() } }
        #expect(inside.awaitStarts(64))
        for _ in 0..<64 { inside.gate.signal() }
        let end = deadline()
        for _ in 0..<64 { #expect(inside.done.wait(timeout: end) == .success) }
    }
}
