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
import Glibc
import Testing

/// A source's cancellation is ordered with its serial target's blocks: once `cancel()` has
/// returned, a `sync` on the target runs after the cancel handler.
@Suite struct SourcesCancelOrderTests {
    #if DEBUG
    /// Found by the composition tester (at a thread cap of 4, 1 program in 51,000): a
    /// delivery going back on its queue for an event merged while the handler ran was
    /// marked scheduled under the source's lock but enqueued after it, so a `cancel()` in
    /// between returned without queueing anything, and the `sync` that followed queued
    /// ahead of the delivery and ran before its cancel handler. The debug build's hook
    /// stops the delivery just before its enqueue while another thread cancels and syncs
    /// (before the fix the hook ran after the unlock, and this failed every time; now
    /// that thread's `cancel()` waits for the lock until the job is queued).
    @Test func aSyncAfterCancelRunsAfterTheCancelHandlerOfADeliveryGoingBackOnTheQueue() async {
        await #expect(processExitsWith: .success) { exit(cancelAndSyncWhileTheDeliveryIsEnqueued(requeue: true)) }
    }

    /// The same window where a merge schedules the delivery (the review of the fix): the
    /// target queue is idle, so a `sync` that got in first would run at once.
    @Test func aSyncAfterCancelRunsAfterTheCancelHandlerOfADeliveryAMergeStarts() async {
        await #expect(processExitsWith: .success) { exit(cancelAndSyncWhileTheDeliveryIsEnqueued(requeue: false)) }
    }
    #endif
}

#if DEBUG
/// In a child process: a user-data source on a serial queue whose delivery job is about
/// to be enqueued, by the merge that starts it or (`requeue`) by a pass going back on the
/// queue for an event merged while its handler ran, when another thread calls `cancel()`
/// and then `sync` on the queue. 0 when that `sync` ran after the cancel handler.
private func cancelAndSyncWhileTheDeliveryIsEnqueued(requeue: Bool) -> Int32 {
    let queue = DispatchQueue(label: "source-target")
    let source = DispatchSource.makeUserDataAddSource(queue: queue)
    let cancelHandlerRan = Counter()
    let syncSawIt = Counter()
    let syncDone = DispatchSemaphore(value: 0)
    let events = Counter()
    let hookCalls = Counter()
    source.setCancelHandler { cancelHandlerRan.increment() }
    source.setEventHandler {
        // The first event merges another: the delivery then goes back on `queue`.
        if events.increment() == 1 { source.add(data: 1) }
    }
    DispatchSource.beforeDeliveryEnqueue = { _ in
        // The first enqueue is the merge's; the second, the pass going back.
        guard hookCalls.increment() == (requeue ? 2 : 1) else { return }
        startThread {
            source.cancel()
            queue.sync { syncSawIt.increment(); if cancelHandlerRan.current == 1 { syncSawIt.increment() } }
            syncDone.signal()
        }
        // Time for that thread to land its cancel and sync here, if it can.
        usleep(50_000)
    }
    source.activate()
    source.add(data: 1)
    guard syncDone.wait(timeout: deadline()) == .success else { return 2 }
    return syncSawIt.current == 2 ? 0 : 1
}

#endif
