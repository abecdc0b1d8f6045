#if canImport(Glibc)
import Glibc
#endif
import BenchCore

/// The `--svg` output: one horizontal bar per table row showing the ratio on a log scale
/// around a marked 1× line (right of it: Conveyor better; left: libdispatch better).
/// Opens in any browser.
enum SVGChart {
    private static let width = 1040.0
    private static let spreadRight = 1020.0  // the spread column ends here
    private static let labelRight = 330.0  // row labels end here
    private static let plotLeft = 380.0
    private static let plotRight = 880.0
    private static let top = 128.0
    private static let rowHeight = 26.0
    private static let barHeight = 16.0

    static func render(_ report: Report) -> String {
        let rows = report.rows
        // Half-width of the scale in powers of two: at least 1 (0.5×–2×), at most 6 (1/64×–64×).
        let logs = rows.compactMap { row -> Double? in value(row.ratio).map { abs(log2($0)) } }
        let span = min(6.0, max(1.0, (logs.max() ?? 1).rounded(.up)))
        let center = (plotLeft + plotRight) / 2
        func x(_ ratio: Double) -> Double {
            let clamped = min(max(log2(ratio), -span), span)
            return center + clamped / span * (plotRight - plotLeft) / 2
        }
        let plotBottom = top + Double(rows.count) * rowHeight
        let height = plotBottom + 112
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="20" y="30" font-size="19" font-weight="bold">Conveyor vs libdispatch: how many times better Conveyor is</text>
            <text x="20" y="52" fill="#444">\(escape(Report.machineLine))</text>
            <text x="20" y="70" fill="#444">\(escape(report.methodLine))</text>
            <text x="20" y="88" fill="#444">\(escape(Report.ratioDefinition)) (log scale)</text>

            """
        // Grid: one line per power of two, the 1× line drawn strong.
        for power in Int(-span)...Int(span) {
            let ratio = pow2(power)
            let gx = x(ratio)
            let strong = power == 0
            svg += "<line x1=\"\(n(gx))\" y1=\"\(n(top - 14))\" x2=\"\(n(gx))\" y2=\"\(n(plotBottom))\" stroke=\"\(strong ? "#222" : "#ddd")\" stroke-width=\"\(strong ? 2 : 1)\"/>\n"
            svg += "<text x=\"\(n(gx))\" y=\"\(n(top - 18))\" text-anchor=\"middle\" fill=\"\(strong ? "#222" : "#777")\"\(strong ? " font-weight=\"bold\"" : "")>\(tickLabel(power))</text>\n"
        }
        svg += "<text x=\"\(n(spreadRight))\" y=\"\(n(top - 18))\" text-anchor=\"end\" fill=\"#777\">spread</text>\n"
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let mid = y + rowHeight / 2
            if let spread = row.spread {
                svg += "<text x=\"\(n(spreadRight))\" y=\"\(n(mid + 4))\" text-anchor=\"end\" fill=\"#777\">\(Format.fixed(spread * 100, 0))%</text>\n"
            }
            svg += "<text x=\"\(n(labelRight))\" y=\"\(n(mid + 4))\" text-anchor=\"end\">\(escape(row.name))</text>\n"
            guard let ratio = value(row.ratio) else {
                let why: String
                if row.failed {
                    why = "check FAILED"
                } else if let seconds = row.dispatch.timedOutAfter, row.conveyor.timedOutAfter != nil {
                    why = "n/a: both gave up after \(Format.compact(seconds)) s"
                } else {
                    why = "n/a"
                }
                svg += "<text x=\"\(n(center + 8))\" y=\"\(n(mid + 4))\" fill=\"\(row.failed ? "#c62828" : "#888")\" font-style=\"italic\">\(why)</text>\n"
                continue
            }
            let end = x(ratio)
            let better = ratio >= 1
            // Within 3 % of 1× is a tie on a shared machine: drawn grey, not as a win or loss.
            let color = abs(log2(ratio)) < log2(1.03) ? "#777777" : better ? "#2e7d32" : "#c62828"
            let bound: Bool
            switch row.ratio {
            case .atLeast, .atMost: bound = true
            case .exactly, .unknown: bound = false
            }
            let left = min(center, end)
            let barWidth = max(1, abs(end - center))
            let style = bound
                ? "fill=\"\(color)\" fill-opacity=\"0.35\" stroke=\"\(color)\" stroke-dasharray=\"4 3\""
                : "fill=\"\(color)\""
            svg += "<rect x=\"\(n(left))\" y=\"\(n(mid - barHeight / 2))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" \(style)/>\n"
            let label = Format.ratio(row.ratio) + "×"
            let textX = better ? end + 6 : end - 6
            svg += "<text x=\"\(n(textX))\" y=\"\(n(mid + 4))\" text-anchor=\"\(better ? "start" : "end")\" fill=\"\(color)\">\(escape(label))</text>\n"
        }
        var footer = plotBottom + 26
        svg += "<text x=\"\(n(center + 8))\" y=\"\(n(footer))\" fill=\"#2e7d32\">Conveyor better →</text>\n"
        svg += "<text x=\"\(n(center - 8))\" y=\"\(n(footer))\" text-anchor=\"end\" fill=\"#c62828\">← libdispatch better</text>\n"
        footer += 22
        svg += "<text x=\"20\" y=\"\(n(footer))\" fill=\"#444\">Dashed bars are bounds (a side gave up after the time limit). Ratios beyond the scale are drawn at its edge. Spread: see the table.</text>\n"
        if report.isStandIn {
            for line in Report.standInNoteLines {
                footer += 18
                svg += "<text x=\"20\" y=\"\(n(footer))\" fill=\"#b26a00\">\(escape(line))</text>\n"
            }
        }
        svg += "</svg>\n"
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
