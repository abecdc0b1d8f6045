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

/// The plain-text table printed to standard output.
enum TableReport {
    static func render(_ report: Report) -> String {
        let headings = columnHeadings(report)
        let cells = report.rows.map { rowCells($0, report) }
        var widths = headings.map(\.count)
        for line in cells {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                Format.pad(cell, widths[column], right: column >= 2)
            }.joined(separator: "  ")
        }
        var out = "Conveyor vs libdispatch: the same workload source, "
        out += report.inProcess ? "both libraries in one process\n" : "each run a fresh process\n"
        out += "command: \(report.command)\n"
        out += "machine: \(Report.machineLine)\n"
        out += "method:  \(report.methodLine)\n"
        out += "\(Report.ratioDefinition)\n"
        out += "\(Report.spreadDefinition)\n"
        if report.dropInLibrary != nil { out += "\(DropInColumn.definition)\n" }
        out += "\n"
        out += line(headings) + "\n"
        out += String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)) + "\n"
        for row in cells { out += line(row) + "\n" }
        let timeouts = report.timeouts
        if !timeouts.isEmpty {
            out += "\n"
            for timeout in timeouts { out += "\(timeout)\n" }
        }
        if report.isStandIn { out += "\n\(Report.standInNote)\n" }
        let failures = report.failures
        if !failures.isEmpty {
            out += "\nFAILED checks (a failed row is never counted as fast):\n"
            for failure in failures { out += "  \(failure)\n" }
        }
        return out
    }

    /// `--markdown`: the table as README shows it, with the command and method above it.
    static func markdown(_ report: Report) -> String {
        var out = "`\(report.command)`\n\n"
        out += "\(Report.machineLine) · \(report.methodLine)\n\n"
        if report.dropInLibrary != nil { out += "\(DropInColumn.definition)\n\n" }
        let headings = columnHeadings(report)
        out += "| " + headings.joined(separator: " | ") + " |\n"
        out += "| --- | --- |" + String(repeating: " ---: |", count: headings.count - 2) + "\n"
        for row in report.rows {
            out += "| " + rowCells(row, report).joined(separator: " | ") + " |\n"
        }
        for note in report.timeouts + report.failures.map({ "FAILED: \($0)" }) {
            out += "\n\(note)\n"
        }
        if !report.concurrency.isEmpty {
            out += "\n" + ConcurrencySection.markdown(report.concurrency, runs: report.runs)
        }
        return out
    }

    /// The columns: the drop-in library's value and ratio follow the switched build's.
    private static func columnHeadings(_ report: Report) -> [String] {
        var headings = ["workload", "unit", "libdispatch", report.candidateHeading, "ratio"]
        if report.dropInLibrary != nil { headings += [DropInColumn.heading, "ratio"] }
        return headings + ["spread"]
    }

    private static func rowCells(_ row: ResultRow, _ report: Report) -> [String] {
        var cells = [
            row.name,
            row.metric.unit.rawValue,
            Format.side(row.dispatch, unit: row.metric.unit),
            Format.side(row.conveyor, unit: row.metric.unit),
            Format.ratio(row.ratio),
        ]
        if report.dropInLibrary != nil {
            cells += [row.dropIn.map { Format.side($0, unit: row.metric.unit) } ?? "-", row.dropInRatio.map(Format.ratio) ?? "-"]
        }
        return cells + [row.spread.map { Format.fixed($0 * 100, 0) + "%" } ?? "-"]
    }

    /// `--list`: every workload with what it measures.
    static func list(_ workloads: [Workload]) -> String {
        let width = workloads.map(\.name.count).max() ?? 0
        return workloads.map { "\(Format.pad($0.name, width))  \($0.summary)" }.joined(separator: "\n") + "\n"
    }
}
