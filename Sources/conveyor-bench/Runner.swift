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

import BenchCore

/// Runs one workload against both libraries and collects the rows of the table.
///
/// By default every run is a fresh child process (`ChildProcess`), the two libraries taking
/// turns (libdispatch first on even runs, Conveyor first on odd ones) so that a change in
/// the machine's load touches both alike; there is no warm-up, since each process starts
/// cold anyway, as a user's program does. With `--in-process` both libraries run in this
/// process after one warm-up run each.
///
/// A workload that `countsAllocations` gets one more run per library with allocation
/// counting on (never a timed one), reported as an extra `mallocs/op` row.
///
/// A side whose run fails its check or gives up is not run again for that workload: a
/// timed-out libdispatch run (blocking fan-out) would cost the time limit each time.
struct Runner {
    /// Measured runs per workload and library.
    let runs: Int
    /// Sizes and time limit of a run.
    let context: RunContext
    /// Run in this process (true) or each run in a fresh child process (false).
    let inProcess: Bool
    /// What a child needs to run with the same sizes and limits.
    let childArguments: [String]

    /// Runs `dispatch` and `conveyor` (the same workload from the two modules).
    func run(dispatch: Workload, conveyor: Workload) -> [ResultRow] {
        precondition(dispatch.name == conveyor.name, "catalogs differ: \(dispatch.name) vs \(conveyor.name)")
        var rows = dispatch.metrics.map { ResultRow(workload: dispatch, metric: $0) }
        // Process CPU time per operation of the measured region, for workloads that have
        // one (`RunContext.perOperation`): what the work cost the machine, not only how long.
        var cpu = ResultRow(workload: dispatch, metric: MetricSpec("CPU", unit: .cpuNanosecondsPerOp))
        let startNs = BenchClock.now()
        Console.progress("\(dispatch.name) ")

        func execute(_ workload: Workload, dispatchSide: Bool, counting: Bool) -> Outcome {
            if inProcess {
                let here = RunContext(
                    quick: context.quick, timeLimitSeconds: context.timeLimitSeconds,
                    countingAllocations: counting)
                return Outcome.runHere(workload, here)
            }
            return ChildProcess.run(
                library: dispatchSide ? "dispatch" : "conveyor", workload: workload.name,
                counting: counting, arguments: childArguments)
        }

        func attempt(_ workload: Workload, _ side: WritableKeyPath<ResultRow, SideResult>, measured: Bool) {
            let state = rows[0][keyPath: side]
            guard state.failure == nil, state.timedOutAfter == nil else { return }
            var outcome = execute(workload, dispatchSide: side == \ResultRow.dispatch, counting: false)
            if outcome.failure == nil, outcome.timedOut == nil, outcome.values.count != rows.count {
                outcome.failure = "returned \(outcome.values.count) values for \(rows.count) metrics"
            }
            for index in rows.indices {
                if let failure = outcome.failure { rows[index][keyPath: side].failure = failure }
                if let timedOut = outcome.timedOut {
                    rows[index][keyPath: side].timedOutAfter = timedOut
                    rows[index][keyPath: side].timeoutDetail = outcome.detail
                }
                if outcome.failure == nil, outcome.timedOut == nil, measured {
                    rows[index][keyPath: side].samples.append(outcome.values[index])
                }
            }
            if outcome.failure == nil, outcome.timedOut == nil, measured, let perOperation = outcome.cpuPerOperation {
                cpu[keyPath: side].samples.append(perOperation)
            }
            let mark = side == \ResultRow.dispatch ? "d" : "c"
            Console.progress(outcome.failure != nil ? "\(mark)!" : outcome.timedOut != nil ? "\(mark)~" : mark)
        }

        switch dispatch.schedule {
        case .repeated:
            if inProcess {
                attempt(dispatch, \.dispatch, measured: false)
                attempt(conveyor, \.conveyor, measured: false)
            }
            for run in 0..<runs {
                if run % 2 == 0 {
                    attempt(dispatch, \.dispatch, measured: true)
                    attempt(conveyor, \.conveyor, measured: true)
                } else {
                    attempt(conveyor, \.conveyor, measured: true)
                    attempt(dispatch, \.dispatch, measured: true)
                }
            }
        case .once:
            attempt(dispatch, \.dispatch, measured: true)
            attempt(conveyor, \.conveyor, measured: true)
        }

        if dispatch.countsAllocations {
            // Below 0.1 allocations per operation both sides count as 0.1: 0.001 vs 2 is not a 2000x win.
            let metric = MetricSpec("mallocs", unit: .allocationsPerOp, noiseFloor: 0.1)
            var row = ResultRow(workload: dispatch, metric: metric)
            for (workload, side) in [(dispatch, \ResultRow.dispatch), (conveyor, \ResultRow.conveyor)] {
                let outcome = execute(workload, dispatchSide: side == \ResultRow.dispatch, counting: true)
                if let value = outcome.values.first, outcome.failure == nil, outcome.timedOut == nil {
                    row[keyPath: side].samples.append(value)
                } else {
                    row[keyPath: side].failure = outcome.failure ?? "the counting run gave up"
                }
                Console.progress(side == \ResultRow.dispatch ? "m" : "M")
            }
            rows.append(row)
        }
        if !cpu.dispatch.samples.isEmpty && !cpu.conveyor.samples.isEmpty { rows.append(cpu) }
        let seconds = Double(BenchClock.now() - startNs) / 1e9
        Console.progress(" \(Format.fixed(seconds, 1)) s\n")
        return rows
    }
}
