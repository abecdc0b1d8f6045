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

/// Number formatting without Foundation's `String(format:)`.
enum Format {
    /// `value` with exactly `decimals` digits after the point ("1.50", "-0.3", "12").
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard decimals > 0 else { return "\(sign)\(whole)" }
        var fraction = String(units % UInt64(scale))
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        return "\(sign)\(whole).\(fraction)"
    }

    /// A metric value as the table shows it, with the digits its unit and size call for.
    static func value(_ value: Double, unit: MetricUnit) -> String {
        fixed(value, unit.decimals(for: value))
    }

    /// One side of a row: the median, "> 5 s" when it gave up, "FAILED" when its check failed.
    static func side(_ side: SideResult, unit: MetricUnit) -> String {
        if side.failure != nil { return "FAILED" }
        if let seconds = side.timedOutAfter { return "> \(compact(seconds)) s" }
        guard let median = side.median else { return "-" }
        return value(median, unit: unit)
    }

    /// A ratio with two significant-ish digits: "1.02", "12.5", "480", "> 480", "n/a".
    static func ratio(_ ratio: Ratio) -> String {
        func number(_ r: Double) -> String { fixed(r, r >= 100 ? 0 : r >= 10 ? 1 : 2) }
        switch ratio {
        case .exactly(let r): return number(r)
        case .atLeast(let r): return "> \(number(r))"
        case .atMost(let r): return "< \(number(r))"
        case .unknown: return "n/a"
        }
    }

    /// A number without a trailing ".0" ("5", "2.5").
    static func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// Pads `text` with spaces on the left (`right: true`) or right to `width` characters.
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
