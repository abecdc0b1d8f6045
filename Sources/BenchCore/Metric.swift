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

/// Describes one number a workload reports: its label, its unit and which direction is good.
public struct MetricSpec: Sendable {
    /// Appended to the workload name to name the table row ("" for a workload's only metric).
    public let label: String
    /// What the number counts, which also decides how it is printed.
    public let unit: MetricUnit
    /// True for efficiency-like metrics, where a larger value is better.
    public let higherIsBetter: Bool
    /// Values below this are indistinguishable from it (measurement noise near zero): the
    /// ratio treats both sides as at least this much, so 0.1 vs 0.3 reads as a tie.
    public let noiseFloor: Double

    /// A metric named `label` (empty for a workload's only or main metric).
    public init(_ label: String = "", unit: MetricUnit, higherIsBetter: Bool = false, noiseFloor: Double = 0) {
        self.label = label
        self.unit = unit
        self.higherIsBetter = higherIsBetter
        self.noiseFloor = noiseFloor
    }
}

/// The unit of a metric, which also decides how it is printed.
public enum MetricUnit: String, Sendable {
    /// Nanoseconds per operation (the workload says what an operation is).
    case nanosecondsPerOp = "ns/op"
    /// Milliseconds of wall time.
    case milliseconds = "ms"
    /// Microseconds of wall time.
    case microseconds = "µs"
    /// Bytes (of heap, per object).
    case bytes = "bytes"
    /// Allocation calls per operation.
    case allocationsPerOp = "mallocs/op"
    /// Percent.
    case percent = "%"
    /// Milliseconds of process CPU time per second of wall time.
    case cpuMillisecondsPerSecond = "CPU ms/s"
    /// Process CPU time (all threads, user + system) per operation, in nanoseconds.
    case cpuNanosecondsPerOp = "CPU ns/op"
    /// Context switches of the whole process per 1,000 operations (wake-ups, see
    /// `Machine.contextSwitches`).
    case switchesPerThousand = "switches/1k"

    /// How many digits after the point the table shows for a value of this size.
    public func decimals(for value: Double) -> Int {
        switch self {
        case .nanosecondsPerOp, .cpuNanosecondsPerOp: return abs(value) < 100 ? 1 : 0
        case .milliseconds: return abs(value) < 10 ? 3 : 1
        case .microseconds: return abs(value) < 10 ? 1 : 0
        case .switchesPerThousand: return 0
        case .bytes: return 0
        case .allocationsPerOp: return 2
        case .percent: return 1
        case .cpuMillisecondsPerSecond: return 3
        }
    }
}
