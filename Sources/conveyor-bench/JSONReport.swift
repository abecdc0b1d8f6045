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

/// The `--json` output: the table, the raw samples and the machine, for tools and history.
enum JSONReport {
    static func render(_ report: Report) -> String {
        // The Swift concurrency rows: a median per setup (as printed) and the ratio.
        let concurrency = report.concurrency.map { row in
            object([
                ("name", string(row.name)), ("unit", string(row.unit)),
                ("cells", "[" + row.cells.map(string).joined(separator: ", ") + "]"),
                ("ratio", row.ratio.map(number) ?? "null"),
                ("dropInRatio", row.dropInRatio.map(number) ?? "null"),
            ], indent: nil)
        }
        let rows = report.rows.map { row in
            object([
                ("name", string(row.name)),
                ("workload", string(row.workload.name)),
                ("metric", string(row.metric.label)),
                ("summary", string(row.workload.summary)),
                ("unit", string(row.metric.unit.rawValue)),
                ("higherIsBetter", row.metric.higherIsBetter ? "true" : "false"),
                ("noiseFloor", number(row.metric.noiseFloor)),
                ("libdispatch", side(row.dispatch)),
                ("conveyor", side(row.conveyor)),
                ("ratio", ratio(row.ratio)),
                ("dropIn", row.dropIn.map(side) ?? "null"),
                ("dropInRatio", row.dropInRatio.map(ratio) ?? "null"),
            ], indent: 2)
        }
        let machine = object([
            ("cpus", String(Machine.cpuCount)),
            ("cpuModel", string(Machine.cpuModel)),
            ("kernel", string(Machine.kernel)),
            ("swift", string(Machine.swiftVersion)),
        ], indent: 1)
        return object([
            ("tool", string("conveyor-bench")),
            ("machine", machine),
            ("command", string(report.command)),
            ("mode", string(report.inProcess ? "in-process" : "child-process")),
            ("loadAverageAtStart", report.loadAverages.start.map(number) ?? "null"),
            ("loadAverageAtEnd", report.loadAverages.end.map(number) ?? "null"),
            ("loadThreads", String(report.loadThreads)),
            ("runs", String(report.runs)),
            ("warmUps", report.inProcess ? "1" : "0"),
            ("quick", report.quick ? "true" : "false"),
            ("timeLimitSeconds", number(report.timeLimitSeconds)),
            ("baselineLibrary", string("Dispatch")),
            ("candidateLibrary", string(report.candidateLibrary)),
            ("dropInLibrary", report.dropInLibrary.map(string) ?? "null"),
            ("ratioDefinition", string(Report.ratioDefinition)),
            ("rows", "[\n    " + rows.joined(separator: ",\n    ") + "\n  ]"),
            ("concurrency", "[\n    " + concurrency.joined(separator: ",\n    ") + "\n  ]"),
        ], indent: 0) + "\n"
    }

    private static func side(_ side: SideResult) -> String {
        object([
            ("median", side.median.map(number) ?? "null"),
            ("samples", "[" + side.samples.map(number).joined(separator: ", ") + "]"),
            ("timedOutAfterSeconds", side.timedOutAfter.map(number) ?? "null"),
            ("timeoutDetail", side.timeoutDetail.map(string) ?? "null"),
            ("error", side.failure.map(string) ?? "null"),
            ("spread", side.spread.map(number) ?? "null"),
        ], indent: nil)
    }

    private static func ratio(_ ratio: Ratio) -> String {
        switch ratio {
        case .exactly(let r): return object([("value", number(r)), ("bound", string("exact"))], indent: nil)
        case .atLeast(let r): return object([("value", number(r)), ("bound", string("atLeast"))], indent: nil)
        case .atMost(let r): return object([("value", number(r)), ("bound", string("atMost"))], indent: nil)
        case .unknown: return "null"
        }
    }

    /// An object from ordered members; `indent` nil keeps it on one line.
    private static func object(_ members: [(String, String)], indent: Int?) -> String {
        let parts = members.map { "\(string($0.0)): \($0.1)" }
        guard let indent else { return "{" + parts.joined(separator: ", ") + "}" }
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        return "{\n" + parts.map { inner + $0 }.joined(separator: ",\n") + "\n\(outer)}"
    }

    /// A JSON number; non-finite values (which JSON lacks) become null.
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// A JSON string literal with the required escapes.
    private static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
