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

/// Everything one benchmark run produced, and the words every output format shares.
struct Report: Sendable {
    let rows: [ResultRow]
    let runs: Int
    let quick: Bool
    let timeLimitSeconds: Double
    /// Whether both libraries ran in the harness's own process (`--in-process`) rather than
    /// each run in a fresh child process.
    let inProcess: Bool
    /// The command line that produced the report (`conveyor-bench` and its arguments).
    let command: String
    /// The machine's one-minute load average when the run started and when it ended.
    let loadAverages: (start: Double?, end: Double?)
    /// The module the "Conveyor" column was really compiled against ("Conveyor", or
    /// "Dispatch" while the package switch is off and the column is a stand-in).
    let candidateLibrary: String
    /// Threads that burned CPU for the whole run (`--load`); 0 for a quiet run.
    let loadThreads: Int
    /// The drop-in library the third column preloaded, or nil when there is no such column.
    let dropInLibrary: String?
    /// The Swift concurrency section's rows (empty when none was selected).
    var concurrency: [ConcurrencyRow] = []

    /// The "Conveyor" column's heading: "Conveyor", or "Conveyor*" for the stand-in.
    var candidateHeading: String { isStandIn ? "Conveyor*" : "Conveyor" }
    var isStandIn: Bool { candidateLibrary != "Conveyor" }

    static let ratioDefinition =
        "ratio = libdispatch / Conveyor (for efficiency: Conveyor / libdispatch); > 1 means Conveyor is faster (better)"

    static let spreadDefinition =
        "spread = interquartile range of the runs / median, the larger of the two sides: ratios within it are noise"

    /// Said under the table and chart while the "Conveyor" column is the Dispatch stand-in.
    static let standInNoteLines = [
        "* Conveyor column built against the toolchain's Dispatch (stand-in; ratios should be ~1.0).",
        "Add .define(\"CONVEYOR\") to the BenchConveyor target in Package.swift to measure Conveyor.",
    ]
    static var standInNote: String { standInNoteLines.joined(separator: " ") }

    /// One line naming the machine and toolchain.
    static var machineLine: String {
        "\(Machine.cpuCount) CPUs (affinity) · \(Machine.cpuModel) · \(Machine.kernel) · Swift \(Machine.swiftVersion)"
    }

    /// How the numbers were taken.
    var methodLine: String {
        let plural = runs == 1 ? "" : "s"
        let how = inProcess
            ? "median of \(runs) run\(plural) after 1 warm-up, both libraries in one process, interleaved"
            : "median of \(runs) run\(plural), each a fresh process per library, the libraries taking turns"
        let load = [loadAverages.start, loadAverages.end].map { $0.map { Format.fixed($0, 1) } ?? "?" }
        let loaded = loadThreads > 0 ? "loaded: \(loadThreads) threads burning CPU at normal priority throughout · " : "quiet (no load added) · "
        return "\(loaded)\(quick ? "quick sizes" : "full sizes") · \(how) (idle-cpu: 1 run) · hanging workloads give up after \(Format.compact(timeLimitSeconds)) s · load average \(load[0]) → \(load[1])"
    }

    /// Rows where a side gave up, with how far it got, for the notes under the table.
    var timeouts: [String] {
        rows.flatMap { row -> [String] in
            var lines: [String] = []
            var sides = [(row.dispatch, "libdispatch"), (row.conveyor, candidateHeading)]
            if let dropIn = row.dropIn { sides.append((dropIn, DropInColumn.heading)) }
            for (side, heading) in sides {
                if let seconds = side.timedOutAfter {
                    lines.append("\(row.name) [\(heading)]: gave up after \(Format.compact(seconds)) s; \(side.timeoutDetail ?? "no detail")")
                }
            }
            return lines
        }
    }

    /// Rows whose check failed, with the message, for the notes under the table.
    var failures: [String] {
        rows.flatMap { row -> [String] in
            var lines: [String] = []
            if let message = row.dispatch.failure { lines.append("\(row.name) [libdispatch]: \(message)") }
            if let message = row.conveyor.failure { lines.append("\(row.name) [\(candidateHeading)]: \(message)") }
            if let message = row.dropIn?.failure { lines.append("\(row.name) [\(DropInColumn.heading)]: \(message)") }
            return lines
        }
    }
}
