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

#if CONVEYOR
import CComposeConveyor
import Conveyor
#else
import CComposeDispatch
import Dispatch
#endif
import Glibc

/// The program's queues whose blocks the calling thread is inside now, outermost first:
/// one entry per checked block on this thread's stack (a block and the `sync` blocks it
/// runs inline).
final class BlocksOnThisThread {
    struct Entry {
        let queue: Int
        /// A block of a serial queue, or a barrier block.
        let exclusive: Bool
    }

    private(set) var entries: [Entry] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<BlocksOnThisThread>.fromOpaque(raw).release()
        }
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    /// This thread's stack of blocks, made on first use.
    static var current: BlocksOnThisThread {
        if let raw = pthread_getspecific(key) { return Unmanaged<BlocksOnThisThread>.fromOpaque(raw).takeUnretainedValue() }
        let made = BlocksOnThisThread()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    func push(_ entry: Entry) { entries.append(entry) }
    func pop() { entries.removeLast() }
}

/// `dispatchPrecondition` (Swift API) or `dispatch_assert_queue*` (C API) of every queue the
/// program made, at the start of each of its blocks and handlers.
///
/// A block runs "on" a queue when that queue is in the target chain of a block on the
/// thread's stack: its own, or one that ran it inline through `sync` or `dispatch_apply`
/// (libdispatch walks its thread frames and their targets; Conveyor its drain frames).
/// It runs on a queue "as a barrier" when it is on a serial queue (width 1: libdispatch's
/// `dispatch_assert_queue_barrier` asks no more), or inside a barrier block of a concurrent
/// one. Every other queue of the program must fail `.onQueue`. Global queues and the main
/// queue are left out: which global queue a chain ends on differs between the libraries
/// (libdispatch moves a serial queue's target to the overcommitting global queue of its
/// QoS, another object than `global(qos:)`), and the main thread is on the main queue
/// outside its blocks too. A condition that does not hold traps, in either library; the
/// tester's crash note names the seed.
extension Runner {
    func checkPreconditions(_ queue: Int, exclusive: Bool) {
        let stack = BlocksOnThisThread.current.entries + [BlocksOnThisThread.Entry(queue: queue, exclusive: exclusive)]
        for candidate in program.queues where !candidate.global && !candidate.main {
            let on = stack.contains { program.chain($0.queue).contains(candidate.index) }
            assertQueue(candidate.index, kind: on ? .on : .notOn)
            // Widths set through the C API take effect asynchronously in libdispatch.
            guard on, candidate.width == nil else { continue }
            if candidate.serial || stack.contains(where: { $0.queue == candidate.index && $0.exclusive }) {
                assertQueue(candidate.index, kind: .barrier)
            }
        }
    }

    enum QueueCondition: Int32 { case on = 0, notOn = 1, barrier = 2 }

    private func assertQueue(_ q: Int, kind: QueueCondition) {
        if program.api == .c { compose_c_assert_queue(cQueues[q], kind.rawValue); return }
        switch kind {
        case .on: dispatchPrecondition(condition: .onQueue(queues[q]))
        case .notOn: dispatchPrecondition(condition: .notOnQueue(queues[q]))
        case .barrier: dispatchPrecondition(condition: .onQueueAsBarrier(queues[q]))
        }
    }
}
