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

import Conveyor
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An actor whose executor is a Conveyor serial queue. Its log is shared with blocks on
/// the queue: both only touch it on the queue.
actor QueueActor {
    let queue: DispatchSerialQueue
    nonisolated let log: QueueLog
    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }

    init(queue: DispatchSerialQueue, log: QueueLog) {
        self.queue = queue
        self.log = log
    }

    func record(_ entry: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        log.append(entry)
    }

    /// Submits a block, starts a task that inherits this actor's isolation, and submits
    /// another block: the three run in that order if the queue is one FIFO for both kinds.
    func interleave() {
        queue.async { self.log.append("block 1") }
        Task { self.record("task") }
        queue.async { self.log.append("block 2") }
    }

    var count: Int { log.entries.count }
}

/// Entries appended only on the actor's queue (checked: two at once would trip `inside`).
final class QueueLog: @unchecked Sendable {
    private var inside = false
    private(set) var entries: [String] = []
    private(set) var overlapped = false
    func append(_ entry: String) {
        if inside { overlapped = true }
        inside = true
        entries.append(entry)
        inside = false
    }
}

@Suite struct SerialQueueExecutorTests {
    @Test func actorJobsAndQueueBlocksShareOneFIFO() async {
        let queue = DispatchSerialQueue(label: "executor.fifo")
        let actor = QueueActor(queue: queue, log: QueueLog())
        await actor.interleave()
        let done = await withCheckedContinuation { continuation in
            queue.async { queue.async { continuation.resume(returning: actor.log.entries) } }
        }
        #expect(done == ["block 1", "task", "block 2"])
    }

    @Test func actorMethodsNeverOverlapQueueBlocks() async {
        let queue = DispatchSerialQueue(label: "executor.overlap")
        let log = QueueLog()
        let actor = QueueActor(queue: queue, log: log)
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask { await actor.record("actor \(i)") }
                queue.async { log.append("block \(i)") }
            }
        }
        let entries = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: (log.entries.count, log.overlapped)) }
        }
        #expect(entries.0 == 400)
        #expect(entries.1 == false)
    }

    @Test func assumeIsolatedHoldsInsideQueueBlocksAndTargetingQueues() async {
        let queue = DispatchSerialQueue(label: "executor.assume")
        let child = DispatchQueue(label: "executor.assume.child", target: queue)
        let actor = QueueActor(queue: queue, log: QueueLog())
        let counts = await withCheckedContinuation { continuation in
            queue.async {
                let direct = actor.assumeIsolated { $0.count }
                child.async {
                    let nested = actor.assumeIsolated { $0.count }
                    continuation.resume(returning: [direct, nested])
                }
            }
        }
        #expect(counts == [0, 0])
        #expect(queue.isIsolatingCurrentContext() == false)
    }

    @Test func checkIsolatedTrapsOffTheQueueWithTheQueuesLabel() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DispatchSerialQueue(label: "executor.check").checkIsolated()
        }.map { result in
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("not isolated to serial queue 'executor.check'"), "\(stderr)")
        }
    }

    @Test func assumeIsolatedOffTheQueueTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            assumeIsolatedOffTheQueue()
        }.map { result in
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            // The runtime asks `isIsolatingCurrentContext()` first and reports the failure itself.
            #expect(stderr.contains("Incorrect actor executor assumption"), "\(stderr)")
        }
    }

    @Test func theMainQueueIsASerialQueue() {
        #expect(DispatchQueue.main is DispatchSerialQueue)
    }
}

/// Claims the isolation of an actor on a queue while not running on the queue.
func assumeIsolatedOffTheQueue() {
    let queue = DispatchSerialQueue(label: "executor.off-queue")
    let actor = QueueActor(queue: queue, log: QueueLog())
    _ = actor.assumeIsolated { $0.count }
}

@Suite struct TaskExecutorTests {
    @Test func aTaskPreferringAConcurrentQueueRunsOnIt() async {
        let queue = DispatchConcurrentQueue(label: "executor.task-preference")
        let ranOnQueue = await Task(executorPreference: queue) { () -> Bool in
            dispatchPrecondition(condition: .onQueue(queue))
            return true
        }.value
        #expect(ranOnQueue)
    }

    @Test func withTaskExecutorPreferenceAndChildTasksUseTheQueue() async {
        let queue = DispatchQueue(label: "executor.with-preference", attributes: .concurrent)
        let results = await withTaskExecutorPreference(queue) {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        dispatchPrecondition(condition: .onQueue(queue))
                        return true
                    }
                }
                group.addTask(executorPreference: DispatchQueue.global(qos: .utility)) {
                    dispatchPrecondition(condition: .onQueue(.global(qos: .utility)))
                    return true
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        #expect(results == 21)
    }
}

@Suite struct GlobalExecutorTests {
    /// Tasks, task groups, sleeps, priorities and 64 blocked tasks on Conveyor as the global
    /// executor (a child program: the executor is chosen once, before the first task).
    @Test func conveyorRunsSwiftConcurrencyWhenInstalled() throws {
        let outcome = try runProbe(nil, program: "conveyor-global-executor-probe")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }
}
