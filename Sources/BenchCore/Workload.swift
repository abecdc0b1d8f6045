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

/// One benchmark workload: a named piece of code that exercises the dispatch library it was
/// compiled against, checks its own result, and returns one value per declared metric.
///
/// The workload source is written once and compiled twice (into `BenchDispatch` and
/// `BenchConveyor`); each module builds its own `Workload` values, which the harness runs
/// side by side.
public struct Workload: Sendable {
    /// How the harness repeats a workload.
    public enum Schedule: Sendable {
        /// One warm-up run, then the requested number of measured runs; the median counts.
        case repeated
        /// A single measured run and no warm-up (slow or stateful measurements).
        case once
    }

    /// Short stable identifier, used by `--only` and in the JSON output.
    public let name: String
    /// One line saying what is measured.
    public let summary: String
    /// What `body` returns, in order.
    public let metrics: [MetricSpec]
    /// How the harness repeats it.
    public let schedule: Schedule
    /// Whether the harness also runs it once with allocation counting on, to report
    /// allocation calls per operation in an extra row (the workload measures its region
    /// with `RunContext.perOperation`, which counts instead of timing in that run).
    public let countsAllocations: Bool
    /// Runs the workload once. Throws `WorkloadError` when the result is wrong or when the
    /// workload gave up after `RunContext.timeLimitSeconds`.
    public let body: @Sendable (RunContext) throws -> [Double]

    public init(
        name: String,
        summary: String,
        metrics: [MetricSpec],
        schedule: Schedule = .repeated,
        countsAllocations: Bool = false,
        body: @escaping @Sendable (RunContext) throws -> [Double]
    ) {
        self.name = name
        self.summary = summary
        self.metrics = metrics
        self.schedule = schedule
        self.countsAllocations = countsAllocations
        self.body = body
    }
}

/// What a workload run may know about the run as a whole.
public struct RunContext: Sendable {
    /// Smaller sizes for smoke tests (`--quick`).
    public let quick: Bool
    /// How long a workload that can hang (blocking fan-out) waits before it gives up.
    public let timeLimitSeconds: Double
    /// This run counts allocation calls instead of measuring time (see `perOperation`).
    public let countingAllocations: Bool

    /// A context for one run.
    public init(quick: Bool, timeLimitSeconds: Double, countingAllocations: Bool = false) {
        self.quick = quick
        self.timeLimitSeconds = timeLimitSeconds
        self.countingAllocations = countingAllocations
    }

    /// `full` normally, `quick` under `--quick`.
    public func size(_ full: Int, quick quickSize: Int) -> Int { quick ? quickSize : full }

    /// Runs `body`, the measured region of `operations` operations, and returns nanoseconds
    /// per operation; in a run that counts allocations, allocation calls (all threads) per
    /// operation instead. Counting is never on in a timed run: while on, every allocation
    /// touches one shared counter, which would slow both libraries down.
    public func perOperation(_ operations: Int, _ body: () throws -> Void) rethrows -> Double {
        if countingAllocations {
            let (allocations, _, _) = try Heap.countAllocations(body)
            return Double(allocations) / Double(operations)
        }
        let cpuBefore = BenchClock.processCPU()
        let (ns, _) = try BenchClock.measure(body)
        CPUPerOperation.record(Double(BenchClock.processCPU() &- cpuBefore) / Double(operations))
        return Double(ns) / Double(operations)
    }
}

/// The process CPU time (all threads, user + system) per operation of the last measured
/// region (`RunContext.perOperation`) in this process, in nanoseconds: what a workload
/// costs the machine, beside the wall time it takes. A child process runs one workload,
/// so the last region is that workload's.
public enum CPUPerOperation {
    private static let bits = Atomic<UInt64>(0)
    private static let recorded = Atomic<Bool>(false)

    /// Records the CPU nanoseconds per operation of a region just measured.
    public static func record(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
        recorded.store(true, ordering: .releasing)
    }

    /// The last recorded value, or nil when no region was measured.
    public static var last: Double? {
        recorded.load(ordering: .acquiring) ? Double(bitPattern: bits.load(ordering: .relaxed)) : nil
    }
}

/// Why a workload run produced no numbers.
public enum WorkloadError: Error, Sendable {
    /// The workload's own check failed: the library under test gave a wrong result.
    case invalid(String)
    /// The workload gave up after this many seconds (and released what it had started);
    /// `detail` says how far it got.
    case timedOut(seconds: Double, detail: String)
}

/// Throws `WorkloadError.invalid(message)` unless `condition` holds.
@inlinable
public func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw WorkloadError.invalid(message()) }
}
