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

#if canImport(Glibc)
import Glibc
#endif
import BenchCore

/// The chart (`--svg`, and `.build/conveyor-bench.svg` by default): one horizontal bar
/// per table row showing libdispatch's result divided by Conveyor's on a log scale around
/// a marked 1× line (right of it: Conveyor better; left: libdispatch better), then the
/// Swift concurrency rows (the default executor's result divided by Conveyor's global
/// executor's). The scale spans the ratios measured; a bar beyond it ends in an arrow at
/// the edge and says so. Opens in any browser.
enum SVGChart {
    private static let width = 1040.0
    private static let spreadRight = 1020.0  // the spread column ends here
    private static let labelRight = 330.0  // row labels end here
    private static let plotLeft = 350.0
    private static let plotRight = 900.0
    private static let rowHeight = 26.0
    private static let barHeight = 16.0
    private static let headerWrap = 135  // characters per header line

    /// One bar: a name, its ratio, its spread, and why it has no bar when it has none.
    private struct Bar {
        let name: String
        let ratio: Ratio
        let spread: Double?
        let failed: Bool
        let bothGaveUpAfter: Double?
    }

    static func render(_ report: Report) -> String {
        let dispatchBars = report.rows.map { row in
            Bar(name: row.name, ratio: row.ratio, spread: row.spread, failed: row.failed,
                bothGaveUpAfter: row.conveyor.timedOutAfter != nil ? row.dispatch.timedOutAfter : nil)
        }
        let concurrencyBars = report.concurrency.map { row in
            Bar(name: row.name, ratio: row.ratio.map(Ratio.exactly) ?? .unknown, spread: nil, failed: false, bothGaveUpAfter: nil)
        }
        let sections = [("Dispatch workloads: libdispatch ÷ Conveyor", dispatchBars),
                         ("Swift concurrency: default executor ÷ Conveyor's global executor", concurrencyBars)]
            .filter { !$0.1.isEmpty }

        // The scale: powers of two from the lowest ratio (at least 1/2×, for context) to
        // the highest (at least 2×), at most 1/64× to 1024×.
        let logs = (dispatchBars + concurrencyBars).compactMap { value($0.ratio).map(log2) }
        let low = Int(max(-6, min(-1, (logs.min() ?? 0).rounded(.down))))
        let high = Int(min(10, max(1, (logs.max() ?? 0).rounded(.up))))
        func x(_ ratio: Double) -> Double {
            let clamped = min(max(log2(ratio), Double(low)), Double(high))
            return plotLeft + (clamped - Double(low)) / Double(high - low) * (plotRight - plotLeft)
        }
        let one = x(1)

        var header = ["\(Report.machineLine)"] + wrap(report.methodLine, headerWrap)
        header += wrap(Report.ratioDefinition + "; log scale", headerWrap)
        var svg = ""
        var y = 30.0
        svg += "<text x=\"20\" y=\"\(n(y))\" font-size=\"19\" font-weight=\"bold\">Conveyor vs libdispatch: libdispatch's result ÷ Conveyor's (> 1× = Conveyor better)</text>\n"
        for line in header {
            y += 18
            svg += "<text x=\"20\" y=\"\(n(y))\" fill=\"#444\">\(escape(line))</text>\n"
        }
        y += 34
        let axisY = y
        svg += "<text x=\"\(n(spreadRight))\" y=\"\(n(axisY))\" text-anchor=\"end\" fill=\"#777\">spread</text>\n"
        for power in low...high {
            let gx = x(pow2(power))
            let strong = power == 0
            svg += "<text x=\"\(n(gx))\" y=\"\(n(axisY))\" text-anchor=\"middle\" fill=\"\(strong ? "#222" : "#777")\"\(strong ? " font-weight=\"bold\"" : "")>\(tickLabel(power))</text>\n"
        }
        y += 8
        let gridTop = y
        for (title, bars) in sections {
            y += 22
            svg += "<text x=\"20\" y=\"\(n(y))\" font-weight=\"bold\">\(escape(title))</text>\n"
            y += 6
            for bar in bars {
                svg += row(bar, top: y, x: x, one: one, scale: (low, high))
                y += rowHeight
            }
        }
        let gridBottom = y
        // Grid behind the bars: one line per power of two, the 1× line drawn strong.
        var grid = ""
        for power in low...high {
            let gx = x(pow2(power))
            let strong = power == 0
            grid += "<line x1=\"\(n(gx))\" y1=\"\(n(gridTop))\" x2=\"\(n(gx))\" y2=\"\(n(gridBottom))\" stroke=\"\(strong ? "#222" : "#ddd")\" stroke-width=\"\(strong ? 2 : 1)\"/>\n"
        }
        var footer = gridBottom + 24
        var notes = "<text x=\"\(n(one + 8))\" y=\"\(n(footer))\" fill=\"#2e7d32\">Conveyor better →</text>\n"
        notes += "<text x=\"\(n(one - 8))\" y=\"\(n(footer))\" text-anchor=\"end\" fill=\"#c62828\">← libdispatch better</text>\n"
        for line in ["Dashed bars are bounds (a side gave up after the time limit); an arrow marks a ratio beyond the scale, its value written beside it.",
                     "Grey: within 3% of 1×, a tie on a shared machine. Spread: the interquartile range over the median; ratios within it are noise."] {
            footer += 20
            notes += "<text x=\"20\" y=\"\(n(footer))\" fill=\"#444\">\(escape(line))</text>\n"
        }
        if report.isStandIn {
            for line in Report.standInNoteLines {
                footer += 18
                notes += "<text x=\"20\" y=\"\(n(footer))\" fill=\"#b26a00\">\(escape(line))</text>\n"
            }
        }
        let height = footer + 20
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>

            """ + grid + svg + notes + "</svg>\n"
    }

    /// One bar's label, bar, value and spread, in the band from `top` down.
    private static func row(_ bar: Bar, top: Double, x: (Double) -> Double, one: Double, scale: (low: Int, high: Int)) -> String {
        let mid = top + rowHeight / 2
        var svg = ""
        if let spread = bar.spread {
            svg += "<text x=\"\(n(spreadRight))\" y=\"\(n(mid + 4))\" text-anchor=\"end\" fill=\"#777\">\(Format.fixed(spread * 100, 0))%</text>\n"
        }
        svg += "<text x=\"\(n(labelRight))\" y=\"\(n(mid + 4))\" text-anchor=\"end\">\(escape(bar.name))</text>\n"
        guard let ratio = value(bar.ratio) else {
            let why = bar.failed ? "check FAILED"
                : bar.bothGaveUpAfter.map { "n/a: both gave up after \(Format.compact($0)) s" } ?? "n/a"
            svg += "<text x=\"\(n(one + 8))\" y=\"\(n(mid + 4))\" fill=\"\(bar.failed ? "#c62828" : "#888")\" font-style=\"italic\">\(why)</text>\n"
            return svg
        }
        let end = x(ratio)
        let better = ratio >= 1
        let color = abs(log2(ratio)) < log2(1.03) ? "#777777" : better ? "#2e7d32" : "#c62828"
        let bound: Bool
        switch bar.ratio {
        case .atLeast, .atMost: bound = true
        case .exactly, .unknown: bound = false
        }
        let offScale = log2(ratio) > Double(scale.high) || log2(ratio) < Double(scale.low)
        let left = min(one, end)
        let barWidth = max(1, abs(end - one))
        let style = bound
            ? "fill=\"\(color)\" fill-opacity=\"0.35\" stroke=\"\(color)\" stroke-dasharray=\"4 3\""
            : "fill=\"\(color)\""
        svg += "<rect x=\"\(n(left))\" y=\"\(n(mid - barHeight / 2))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" \(style)/>\n"
        var textX = better ? end + 6 : end - 6
        if offScale {
            // An arrow head past the edge: the bar goes on.
            let tip = better ? end + 10 : end - 10
            svg += "<path d=\"M \(n(end)) \(n(mid - barHeight / 2 - 2)) L \(n(tip)) \(n(mid)) L \(n(end)) \(n(mid + barHeight / 2 + 2)) Z\" fill=\"\(color)\"/>\n"
            textX = better ? tip + 4 : tip - 4
        }
        let label = Format.ratio(bar.ratio) + "×" + (offScale ? " (off scale)" : "")
        svg += "<text x=\"\(n(textX))\" y=\"\(n(mid + 4))\" text-anchor=\"\(better ? "start" : "end")\" fill=\"\(color)\">\(escape(label))</text>\n"
        return svg
    }

    /// The number a bar is drawn to, or nil when the row has no comparable ratio.
    private static func value(_ ratio: Ratio) -> Double? {
        switch ratio {
        case .exactly(let r), .atLeast(let r), .atMost(let r): return r > 0 && r.isFinite ? r : nil
        case .unknown: return nil
        }
    }

    private static func pow2(_ power: Int) -> Double {
        power >= 0 ? Double(1 << power) : 1 / Double(1 << -power)
    }

    private static func tickLabel(_ power: Int) -> String {
        power >= 0 ? "\(1 << power)×" : "1/\(1 << -power)×"
    }

    /// `text` in lines of at most `limit` characters, broken at spaces.
    private static func wrap(_ text: String, _ limit: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > limit {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    private static func n(_ value: Double) -> String { Format.fixed(value, 1) }

    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
