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

/// What a queue keeps allocated (the benchmark's memory-idle-queue measures the bytes).
@Suite struct QueueMemoryTests {
    /// A queue used only with `sync` (a queue as a lock) never makes its drain job; the
    /// first `async` makes it, and later drains reuse that one job.
    @Test func aQueueUsedOnlyWithSyncAllocatesNoDrainJob() {
        let queue = DispatchQueue(label: "sync-only")
        var total = 0
        for index in 0..<1_000 { queue.sync { total += index } }
        #expect(total == 499_500)
        #expect(queue.drainJob == nil)

        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
        let first = queue.sync { queue.drainJob.map(ObjectIdentifier.init) }
        #expect(first != nil)
        queue.async { done.signal() }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(queue.sync { queue.drainJob.map(ObjectIdentifier.init) } == first)
    }
}
