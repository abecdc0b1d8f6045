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

import BenchConveyor
import BenchCore
import BenchDispatch
#if canImport(Glibc)
import Glibc
#endif

/// `conveyor-bench`: runs every workload against the toolchain's Dispatch and against
/// Conveyor and prints the medians side by side (see Benchmarks/README.md). Each measured
/// run is a fresh child process (this program with `--child LIBRARY WORKLOAD`), unless
/// `--in-process` asks for the old mode with both libraries interleaved in one process.
///
/// The two columns come from two modules built from the same source directory:
/// `BenchDispatch` (compiled against Dispatch) and `BenchConveyor` (compiled against
/// Conveyor: the `CONVEYOR` define on that target).
@main
enum ConveyorBench {
    static func main() {
        _ = Machine.threadsAtLaunch  // before any workload starts a thread
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Console.progress("conveyor-bench: \(error.message)\n\n\(Options.usage)\n")
            exit(2)
        }
        if options.help {
            print(Options.usage)
            return
        }
        if let child = options.concurrencyChild {
            ConcurrencySection.serve(variant: child.setup, workload: child.workload, quick: options.quick)
        }
        if let child = options.child {
            ChildProcess.serve(
                options, catalog: child.library == "dispatch" ? BenchDispatch.Catalog.all : BenchConveyor.Catalog.all)
        }
        let pairs = Array(zip(BenchDispatch.Catalog.all, BenchConveyor.Catalog.all))
        precondition(
            BenchDispatch.Catalog.all.count == BenchConveyor.Catalog.all.count,
            "the two workload modules differ; they must be built from the same source")
        if options.list {
            print(TableReport.list(BenchDispatch.Catalog.all), terminator: "")
            return
        }
        let selected = pairs.filter { options.selects($0.0.name) }
        let concurrencySelected = ConcurrencyWorkload.all.contains { options.selects($0.name) }
        guard !selected.isEmpty || concurrencySelected else {
            Console.progress("conveyor-bench: no workload matches \(options.only); try --list\n")
            exit(2)
        }

        let timeLimit = options.timeLimitSeconds ?? (options.quick ? 2 : 5)
        let context = RunContext(quick: options.quick, timeLimitSeconds: timeLimit)
        var runner = Runner(
            runs: options.runs, context: context, inProcess: options.inProcess,
            childArguments: options.childArguments)
        runner.dropInLibrary = DropInColumn.library(options)
        Console.progress("conveyor-bench: \(selected.count) workloads, \(options.inProcess ? "in this process" : "a fresh process per run"); ")
        if options.inProcess {
            Console.progress("calibrating… ")
            _ = SpinWork.roundsPer10Microseconds
        }
        Console.progress("(progress: d = libdispatch run, c = Conveyor run, p = libdispatch build under the drop-in library, upper case = allocation-counting runs, ! failed, ~ gave up)\n")

        let load = LoadGenerator(threads: options.loadThreads)
        if options.loadThreads > 0 { Console.progress("loaded: \(options.loadThreads) threads burning CPU for the whole run\n") }
        let loadAtStart = Machine.loadAverage
        var rows: [ResultRow] = []
        for (dispatch, conveyor) in selected {
            rows += runner.run(dispatch: dispatch, conveyor: conveyor)
        }
        var report = Report(
            rows: rows, runs: options.runs, quick: options.quick, timeLimitSeconds: timeLimit,
            inProcess: options.inProcess,
            command: (["conveyor-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " "),
            loadAverages: (loadAtStart, Machine.loadAverage),
            candidateLibrary: BenchConveyor.Catalog.library,
            loadThreads: options.loadThreads,
            dropInLibrary: runner.dropInLibrary)

        print("")
        if !rows.isEmpty { print(TableReport.render(report), terminator: "") }
        report.concurrency = ConcurrencySection.run(
            runs: options.runs, quick: options.quick, dropInLibrary: runner.dropInLibrary, selects: options.selects)
        load.finish()
        if !report.concurrency.isEmpty {
            print("")
            print(ConcurrencySection.text(report.concurrency, runs: options.runs), terminator: "")
        }
        var status: Int32 = report.failures.isEmpty ? 0 : 1
        if let path = options.jsonPath {
            if let problem = Console.writeFile(path, JSONReport.render(report)) {
                Console.progress("conveyor-bench: \(problem)\n")
                status = 1
            } else {
                Console.progress("wrote \(path)\n")
            }
        }
        let outputs: [(String?, (Report) -> String)] = [
            (options.svgPath, SVGChart.render), (options.markdownPath, TableReport.markdown),
        ]
        for case let (path?, render) in outputs {
            if let problem = Console.writeFile(path, render(report)) {
                Console.progress("conveyor-bench: \(problem)\n")
                status = 1
            } else {
                Console.progress("wrote \(path)\n")
            }
        }
        // The chart is always drawn; without --svg it goes to the build folder, and a
        // folder that is not there is no failure of the run.
        if options.svgPath == nil {
            let path = Options.defaultChartPath
            if let problem = Console.writeFile(path, SVGChart.render(report)) {
                Console.progress("conveyor-bench: no chart: \(problem)\n")
            } else {
                Console.progress("chart: \(path)\n")
            }
        }
        exit(status)
    }
}
