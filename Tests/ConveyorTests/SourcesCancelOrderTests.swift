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
    /// stops the delivery there; another thread cancels and syncs meanwhile.
    @Test func aSyncAfterCancelRunsAfterTheCancelHandlerOfADeliveryGoingBackOnTheQueue() async {
        await #expect(processExitsWith: .success) {
            let queue = DispatchQueue(label: "source-target")
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            let cancelHandlerRan = Counter()
            let syncSawIt = Counter()
            let syncDone = DispatchSemaphore(value: 0)
            let armed = Counter()
            source.setCancelHandler { cancelHandlerRan.increment() }
            source.setEventHandler {
                // The first event merges another: the delivery then goes back on `queue`.
                if armed.increment() == 1 { source.add(data: 1) }
            }
            DispatchSource.beforeDeliveryEnqueue = { _ in
                guard armed.current == 1, syncSawIt.current == 0 else { return }
                armed.increment()
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
            guard syncDone.wait(timeout: deadline()) == .success else { exit(2) }
            exit(syncSawIt.current == 2 ? 0 : 1)
        }
    }
    #endif
}
