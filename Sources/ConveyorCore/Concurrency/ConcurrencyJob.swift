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

/// A Swift concurrency job (a task's next partial run) waiting on a Conveyor queue or in
/// the pool, as a Conveyor `Job`.
final class ConcurrencyJob: Job, @unchecked Sendable {
    /// How the job is run once it is its turn.
    enum Context {
        /// On a serial queue that is an actor's executor (or the main queue).
        case serial(UnownedSerialExecutor)
        /// On a queue that is a task's preferred executor.
        case task(UnownedTaskExecutor)
        /// On the pool, as Swift concurrency's global executor.
        case global
    }

    private let job: UnownedJob
    private let context: Context

    /// A job to run in `context`, at `band` (by default the band of the job's priority).
    init(_ job: UnownedJob, context: Context, band: QoSBand? = nil) {
        self.job = job
        self.context = context
        super.init(band: band ?? QoSBand(jobPriority: job.priority))
    }

    override func run(on queue: DispatchQueue?) {
        switch context {
        case .serial(let executor): job.runSynchronously(on: executor)
        case .task(let executor): job.runSynchronously(on: executor)
        case .global: GlobalExecutor.run(job)
        }
    }
}

extension QoSBand {
    /// The band for a job's priority (a task's priority, escalated or not).
    init(jobPriority: JobPriority) {
        switch jobPriority.rawValue {
        case 0x21...: self = .userInteractive
        case 0x19..<0x21: self = .userInitiated
        case 0x11..<0x15: self = .utility
        case 0x01..<0x11: self = .background
        default: self = .default   // 0x15 (medium) and unspecified
        }
    }
}
