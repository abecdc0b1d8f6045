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

/// What one library achieved on one metric over all its runs.
struct SideResult: Sendable {
    /// One value per measured run.
    var samples: [Double] = []
    /// Set when a run gave up after this many seconds (no further runs were made).
    var timedOutAfter: Double?
    /// How far the run that gave up had got.
    var timeoutDetail: String?
    /// Set when a run failed its own check (no further runs were made).
    var failure: String?

    /// The median of the samples, when there are samples and no run went wrong.
    var median: Double? {
        guard timedOutAfter == nil, failure == nil, !samples.isEmpty else { return nil }
        return Statistics.median(samples)
    }

    /// The interquartile range of the samples relative to their median (0.1 = 10 %), when
    /// there are at least three samples: how noisy this side's runs were.
    var spread: Double? {
        guard let median, median != 0, samples.count >= 3 else { return nil }
        return (Statistics.percentile(samples, 75) - Statistics.percentile(samples, 25)) / abs(median)
    }

    /// A bound for a timed-out result in the metric's unit ("more than this"), if it has one.
    func lowerBound(unit: MetricUnit) -> Double? {
        guard let seconds = timedOutAfter, failure == nil else { return nil }
        switch unit {
        case .milliseconds: return seconds * 1000
        case .microseconds: return seconds * 1_000_000
        case .nanosecondsPerOp, .cpuNanosecondsPerOp, .bytes, .allocationsPerOp, .percent, .cpuMillisecondsPerSecond,
            .switchesPerThousand:
            return nil
        }
    }
}

/// How many times better Conveyor did than libdispatch on a row; > 1 favours Conveyor.
enum Ratio: Sendable {
    case exactly(Double)
    /// Conveyor is at least this much better (libdispatch timed out).
    case atLeast(Double)
    /// Conveyor is at most this good (Conveyor timed out).
    case atMost(Double)
    /// Not comparable: a failure, both timed out, or a zero on either side.
    case unknown
}

/// One line of the result table: one metric of one workload, for both libraries, and for
/// the libdispatch build run under Conveyor's drop-in library when that column is measured.
struct ResultRow: Sendable {
    let workload: Workload
    let metric: MetricSpec
    var dispatch = SideResult()
    var conveyor = SideResult()
    /// The libdispatch build of the workload, unchanged, run under libConveyorDropIn.so
    /// (nil when that column is not measured).
    var dropIn: SideResult?

    /// The row's display name: the workload's, plus the metric's label when it has several.
    var name: String { metric.label.isEmpty ? workload.name : "\(workload.name) \(metric.label)" }

    /// libdispatch / Conveyor for lower-is-better metrics, Conveyor / libdispatch otherwise.
    var ratio: Ratio { Self.ratio(metric, dispatch, conveyor) }

    /// The same ratio for the drop-in column (libdispatch / drop-in), when it was measured.
    var dropInRatio: Ratio? { dropIn.map { Self.ratio(metric, dispatch, $0) } }

    private static func ratio(_ metric: MetricSpec, _ dispatch: SideResult, _ conveyor: SideResult) -> Ratio {
        let better = metric.higherIsBetter
        let floor = metric.noiseFloor
        func ratio(_ d: Double, _ c: Double) -> Double? {
            let (top, bottom) = better ? (max(c, floor), max(d, floor)) : (max(d, floor), max(c, floor))
            return bottom > 0 && top > 0 ? top / bottom : nil
        }
        switch (dispatch.median, conveyor.median) {
        case let (d?, c?):
            return ratio(d, c).map(Ratio.exactly) ?? .unknown
        case let (nil, c?):
            // libdispatch gave up: it took longer than its bound (only time metrics have one).
            guard !better, let bound = dispatch.lowerBound(unit: metric.unit), let r = ratio(bound, c) else { return .unknown }
            return .atLeast(r)
        case let (d?, nil):
            guard !better, let bound = conveyor.lowerBound(unit: metric.unit), let r = ratio(d, bound) else { return .unknown }
            return .atMost(r)
        case (nil, nil):
            return .unknown
        }
    }

    /// The largest spread of the sides (see `SideResult.spread`).
    var spread: Double? {
        [dispatch.spread, conveyor.spread, dropIn?.spread].compactMap { $0 }.max()
    }

    /// Whether any side failed this row's check.
    var failed: Bool { dispatch.failure != nil || conveyor.failure != nil || dropIn?.failure != nil }
}
