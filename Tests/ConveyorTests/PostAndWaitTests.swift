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
#if canImport(Glibc)
import Glibc
#endif

/// Work that posts a block and waits for it, more of it than the pool may have threads:
/// the posted blocks must not queue behind the waiting work (the pool hands a blocked
/// worker's posts to the others first, `WorkerPool.handOffLocalWork`). Before, every
/// thread up to the cap held a waiter and the blocks they waited for never ran, as on
/// libdispatch. Child processes: a failure holds every thread the pool may have.
@Suite(.serialized) struct PostAndWaitTests {
    /// Starts `count` waiters on `queue`, each posting with `post` and waiting for what it
    /// posted; exits 0 when all finished within a generous deadline.
    private static func allFinish(_ count: Int, on queue: DispatchQueue = .global(),
                                  _ post: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> Never {
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            queue.async {
                let posted = DispatchSemaphore(value: 0)
                post { posted.signal() }
                posted.wait()
                finished.signal()
            }
        }
        let deadline = DispatchTime.now() + 60
        for done in 0..<count where finished.wait(timeout: deadline) == .timedOut {
            writeToStandardError("\(done) of \(count) finished\n")
            exit(1)
        }
        exit(0)
    }

    @Test func blocksThatPostToAGlobalQueueAndWaitFinishPastTheThreadCap() async {
        await #expect(processExitsWith: .success) {
            Self.allFinish(4 * WorkerPool.shared.maxThreads) { signal in DispatchQueue.global().async { signal() } }
        }
    }

    /// The posted block is a serial queue's drain, which goes to the worker's LIFO slot.
    @Test func blocksThatPostToASerialQueueAndWaitFinishPastTheThreadCap() async {
        await #expect(processExitsWith: .success) {
            let serial = DispatchQueue(label: "post-and-wait")
            Self.allFinish(4 * WorkerPool.shared.maxThreads) { signal in serial.async { signal() } }
        }
    }

    /// A job on the pool posts the waiters, then waits for them all (as a test body does
    /// that Swift Testing runs on the pool under the drop-in library): its posts are
    /// handed off when it blocks, and each waiter's own post must still come before the
    /// waiters handed off with them.
    @Test func aJobThatPostsTheWaitersAndWaitsForThemFinishesPastTheThreadCap() async {
        await #expect(processExitsWith: .success) {
            DispatchQueue.global().async {
                Self.allFinish(4 * WorkerPool.shared.maxThreads) { signal in DispatchQueue.global().async { signal() } }
            }
            while true { pause() }
        }
    }

    /// The waiters come through a concurrent queue of its own, as Swift concurrency's jobs
    /// do under the drop-in library.
    @Test func itemsOfAConcurrentQueueThatPostAndWaitFinishPastTheThreadCap() async {
        await #expect(processExitsWith: .success) {
            let queue = DispatchQueue(label: "post-and-wait.concurrent", attributes: .concurrent)
            Self.allFinish(4 * WorkerPool.shared.maxThreads, on: queue) { signal in DispatchQueue.global().async { signal() } }
        }
    }
}
