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
import Conveyor
#if canImport(Glibc)
import Glibc
#endif

/// The Swift concurrency section of the benchmark: each workload of `ConcurrencyWorkload`
/// in each of its setups, every run a fresh child process (`--concurrency-child SETUP
/// WORKLOAD`), medians printed as a table with one column per setup.
enum ConcurrencySection {
    /// Runs as the child: installs Conveyor as the global executor first if asked (before
    /// any task exists, as a program must), runs the workload once, prints its values.
    static func serve(variant: String, workload name: String, quick: Bool) -> Never {
        guard let setup = ConcurrencyVariant(rawValue: variant),
              let workload = ConcurrencyWorkload.all.first(where: { $0.name == name }) else {
            Console.progress("conveyor-bench --concurrency-child: unknown setup or workload\n")
            exit(2)
        }
        if setup == .conveyorGlobal, !ConveyorConcurrency.installGlobalExecutor() {
            Console.progress("conveyor-bench: could not install Conveyor as the global executor\n")
            exit(3)
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var values: [Double] = []
        Task.detached {
            values = await workload.body(setup, quick)
            done.signal()
        }
        done.wait()
        print("values " + values.map { String($0) }.joined(separator: " "))
        fflush(nil)
        exit(0)
    }

    /// Runs the selected workloads `runs` times per setup and returns their rows.
    /// With `dropInLibrary`, every workload that runs on the default executor also runs so in
    /// a process that preloads it (the `defaultDropIn` setup).
    static func run(runs: Int, quick: Bool, dropInLibrary: String?, selects: (String) -> Bool) -> [ConcurrencyRow] {
        let workloads = ConcurrencyWorkload.all.filter { selects($0.name) }
        var rows: [ConcurrencyRow] = []
        for workload in workloads {
            Console.progress("\(workload.name) ")
            var samples: [ConcurrencyVariant: [[Double]]] = [:]
            var variants = workload.variants
            if dropInLibrary != nil, variants.contains(.defaultExecutor) { variants.append(.defaultDropIn) }
            for _ in 0..<runs {
                for variant in variants {
                    let preload = variant == .defaultDropIn ? dropInLibrary : nil
                    if let values = child(variant: variant, workload: workload.name, quick: quick, preload: preload),
                       values.count == workload.metrics.count {
                        samples[variant, default: []].append(values)
                        Console.progress(".")
                    } else {
                        Console.progress("!")
                    }
                }
            }
            Console.progress("\n")
            for (index, metric) in workload.metrics.enumerated() {
                func median(_ variant: ConcurrencyVariant) -> Double? {
                    guard let runs = samples[variant], !runs.isEmpty else { return nil }
                    return Statistics.median(runs.map { $0[index] })
                }
                let cells = ConcurrencyVariant.allCases.map { variant -> String in
                    guard variants.contains(variant) else { return "n/a" }
                    return median(variant).map { Format.fixed($0, $0 < 10 ? 2 : 0) } ?? "FAILED"
                }
                var ratio: Double?
                if let base = median(.defaultExecutor), let conveyor = median(.conveyorGlobal), conveyor > 0, base > 0 {
                    ratio = base / conveyor
                }
                var dropInRatio: Double?
                if let base = median(.defaultExecutor), let dropIn = median(.defaultDropIn), dropIn > 0, base > 0 {
                    dropInRatio = base / dropIn
                }
                let label = metric.label.isEmpty ? workload.name : "\(workload.name) \(metric.label)"
                rows.append(ConcurrencyRow(name: label, unit: metric.unit, cells: cells, ratio: ratio, dropInRatio: dropInRatio))
            }
        }
        return rows
    }

    static let headings = ["workload", "unit", "default executor", "Conveyor executor", "actors on Conveyor queues",
                           "default executor, drop-in", "ratio", "drop-in ratio"]
    static func title(runs: Int) -> String {
        "Swift concurrency (median of \(runs) runs, a fresh process per run; ratio = default executor / Conveyor executor, "
            + "drop-in ratio = default executor / the same under Conveyor's drop-in library; > 1 means Conveyor is faster)"
    }

    /// The rows as an aligned plain-text table, for the terminal.
    static func text(_ rows: [ConcurrencyRow], runs: Int) -> String {
        let cells = rows.map { [$0.name, $0.unit] + $0.cells + [$0.ratio, $0.dropInRatio].map { $0.map { Format.fixed($0, 2) } ?? "n/a" } }
        var widths = headings.map(\.count)
        for line in cells { for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { Format.pad($1, widths[$0], right: $0 >= 2) }.joined(separator: "  ")
        }
        var out = title(runs: runs) + "\n\n" + line(headings) + "\n"
        out += String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)) + "\n"
        for row in cells { out += line(row) + "\n" }
        return out
    }

    /// The rows as a Markdown table, for `--markdown` and README.
    static func markdown(_ rows: [ConcurrencyRow], runs: Int) -> String {
        var lines = [title(runs: runs), "", "| " + headings.joined(separator: " | ") + " |",
                     "| --- | --- |" + String(repeating: " ---: |", count: headings.count - 2)]
        for row in rows {
            let ratios = [row.ratio, row.dropInRatio].map { $0.map { Format.fixed($0, 2) } ?? "n/a" }
            lines.append("| \(row.name) | \(row.unit) | \(row.cells.joined(separator: " | ")) | \(ratios.joined(separator: " | ")) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One child run; nil when it failed.
    private static func child(variant: ConcurrencyVariant, workload: String, quick: Bool, preload: String?) -> [Double]? {
        let words = ChildProcess.preloading(
            preload, [ChildProcess.executable, "--concurrency-child", variant.rawValue, workload] + (quick ? ["--quick"] : []))
        guard let (output, status) = ChildProcess.capture(words), status == 0,
              let line = output.split(separator: "\n").last(where: { $0.hasPrefix("values ") }) else { return nil }
        return line.dropFirst("values ".count).split(separator: " ").compactMap { Double($0) }
    }
}

/// One metric of one Swift concurrency workload: a median per setup, and the ratio of the
/// default executor's to Conveyor's global executor's (both lower-is-better).
struct ConcurrencyRow: Sendable {
    let name: String
    let unit: String
    /// One cell per `ConcurrencyVariant`, in `allCases` order.
    let cells: [String]
    let ratio: Double?
    /// Default executor / default executor under the drop-in library.
    let dropInRatio: Double?
}
