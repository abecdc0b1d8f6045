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


import Synchronization

// Overcommitting global queues (C's `DISPATCH_QUEUE_OVERCOMMIT`): while a job of one runs
// and is not blocked, the pool wants one more runnable worker (`overcommitCredit`, part of
// `target`), so such work always gets a thread even when it spins. `willBlock` and the
// watchdog take the credit back while such a job blocks (WorkerPool+HandOff.swift,
// WorkerPool+Watch.swift).
extension WorkerPool {
    /// A job of an overcommitting queue starts on this worker: it may run for ever without
    /// blocking, so the pool wants one more runnable worker while it runs, and starts or
    /// wakes one now if work is waiting (submissions made while every wanted worker ran
    /// only poked the watchdog).
    ///
    /// Dekker pairing with `notifyWorkAvailable`: a submitter publishes its job, fences,
    /// then reads the target (this credit); here the credit is raised, fenced, then the
    /// queues are read. A submitter that read the old credit (and only poked the watchdog)
    /// published its job before its fence, so this look finds it and wakes a worker.
    func beginOvercommit() {
        overcommitCredit.wrappingAdd(1, ordering: .sequentiallyConsistent)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if hasVisibleWork(includingLIFO: true) { notifyWorkAvailable() }
    }

    /// The job of an overcommitting queue returned; a worker above the target parks when
    /// it next looks for work (`hasSurplusWorkers`).
    func endOvercommit() {
        overcommitCredit.wrappingSubtract(1, ordering: .relaxed)
    }
}
