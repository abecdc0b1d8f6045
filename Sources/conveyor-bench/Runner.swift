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
    /// libConveyorDropIn.so, when the third column is measured: the libdispatch build of
    /// each workload, unchanged, in a child process that preloads it (never in-process).
    var dropInLibrary: String? = nil

    /// Who runs a workload: the two builds, and the libdispatch build under the drop-in.
    private enum Side {
        case dispatch, conveyor, dropIn

        var keyPath: WritableKeyPath<ResultRow, SideResult> {
            switch self {
            case .dispatch: \.dispatch
            case .conveyor: \.conveyor
            case .dropIn: \.dropIn!
            }
        }
        /// The progress mark of a run; upper case for the allocation-counting run.
        var mark: String {
            switch self {
            case .dispatch: "d"
            case .conveyor: "c"
            case .dropIn: "p"
            }
        }
    }

    /// Runs `dispatch` and `conveyor` (the same workload from the two modules), and
    /// `dispatch` under the drop-in library when `dropInLibrary` is set.
    func run(dispatch: Workload, conveyor: Workload) -> [ResultRow] {
        precondition(dispatch.name == conveyor.name, "catalogs differ: \(dispatch.name) vs \(conveyor.name)")
        let measuringDropIn = dropInLibrary != nil && !inProcess
        let sides: [Side] = measuringDropIn ? [.dispatch, .conveyor, .dropIn] : [.dispatch, .conveyor]
        var rows = dispatch.metrics.map { ResultRow(workload: dispatch, metric: $0, dropIn: measuringDropIn ? SideResult() : nil) }
        // Process CPU time per operation of the measured region, for workloads that have
        // one (`RunContext.perOperation`): what the work cost the machine, not only how long.
        var cpu = ResultRow(workload: dispatch, metric: MetricSpec("CPU", unit: .cpuNanosecondsPerOp),
                            dropIn: measuringDropIn ? SideResult() : nil)
        let startNs = BenchClock.now()
        Console.progress("\(dispatch.name) ")

        func execute(_ side: Side, counting: Bool) -> Outcome {
            let workload = side == .conveyor ? conveyor : dispatch
            if inProcess {
                let here = RunContext(
                    quick: context.quick, timeLimitSeconds: context.timeLimitSeconds,
                    countingAllocations: counting)
                return Outcome.runHere(workload, here)
            }
            return ChildProcess.run(
                library: side == .conveyor ? "conveyor" : "dispatch", workload: workload.name,
                counting: counting, arguments: childArguments, preload: side == .dropIn ? dropInLibrary : nil)
        }

        func attempt(_ side: Side, measured: Bool) {
            let path = side.keyPath
            let state = rows[0][keyPath: path]
            guard state.failure == nil, state.timedOutAfter == nil else { return }
            var outcome = execute(side, counting: false)
            if outcome.failure == nil, outcome.timedOut == nil, outcome.values.count != rows.count {
                outcome.failure = "returned \(outcome.values.count) values for \(rows.count) metrics"
            }
            for index in rows.indices {
                if let failure = outcome.failure { rows[index][keyPath: path].failure = failure }
                if let timedOut = outcome.timedOut {
                    rows[index][keyPath: path].timedOutAfter = timedOut
                    rows[index][keyPath: path].timeoutDetail = outcome.detail
                }
                if outcome.failure == nil, outcome.timedOut == nil, measured {
                    rows[index][keyPath: path].samples.append(outcome.values[index])
                }
            }
            if outcome.failure == nil, outcome.timedOut == nil, measured, let perOperation = outcome.cpuPerOperation {
                cpu[keyPath: path].samples.append(perOperation)
            }
            Console.progress(outcome.failure != nil ? "\(side.mark)!" : outcome.timedOut != nil ? "\(side.mark)~" : side.mark)
        }

        switch dispatch.schedule {
        case .repeated:
            if inProcess {
                attempt(.dispatch, measured: false)
                attempt(.conveyor, measured: false)
            }
            // The sides take turns, each run starting with the next one, so that a change
            // in the machine's load touches all alike.
            for run in 0..<runs {
                for offset in sides.indices { attempt(sides[(run + offset) % sides.count], measured: true) }
            }
        case .once:
            for side in sides { attempt(side, measured: true) }
        }

        if dispatch.countsAllocations {
            // Below 0.1 allocations per operation both sides count as 0.1: 0.001 vs 2 is not a 2000x win.
            let metric = MetricSpec("mallocs", unit: .allocationsPerOp, noiseFloor: 0.1)
            var row = ResultRow(workload: dispatch, metric: metric, dropIn: measuringDropIn ? SideResult() : nil)
            for side in sides {
                let outcome = execute(side, counting: true)
                if let value = outcome.values.first, outcome.failure == nil, outcome.timedOut == nil {
                    row[keyPath: side.keyPath].samples.append(value)
                } else {
                    row[keyPath: side.keyPath].failure = outcome.failure ?? "the counting run gave up"
                }
                Console.progress(side.mark.uppercased())
            }
            rows.append(row)
        }
        if !cpu.dispatch.samples.isEmpty && !cpu.conveyor.samples.isEmpty { rows.append(cpu) }
        let seconds = Double(BenchClock.now() - startNs) / 1e9
        Console.progress(" \(Format.fixed(seconds, 1)) s\n")
        return rows
    }
}
