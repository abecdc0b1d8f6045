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

/// Every dispatch queue can be a task's preferred executor: `Task(executorPreference:)`,
/// `withTaskExecutorPreference(_:operation:)` and `addTask(executorPreference:)` then run
/// the task's code that is not isolated to an actor on the queue (in parallel with other
/// tasks on a concurrent or global queue; one at a time on a serial queue).
extension DispatchQueue: TaskExecutor {
    /// Runs a job on this queue, after the work submitted before it: a job of a task that
    /// prefers this queue, or, on a `DispatchSerialQueue`, a job of an actor that runs on
    /// it (this one method serves both `TaskExecutor` and `SerialExecutor` there, and the
    /// job runs alone on the queue either way).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        // The queue's quality of service applies, as it does to the queue's blocks.
        if let serial = self as? DispatchSerialQueue {
            enqueue(ConcurrencyJob(unowned, context: .serial(serial.asUnownedSerialExecutor()), band: band))
        } else {
            enqueue(ConcurrencyJob(unowned, context: .task(asUnownedTaskExecutor()), band: band))
        }
    }
}
