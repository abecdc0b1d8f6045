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

/// A span of time (a number of seconds, milliseconds, microseconds or nanoseconds, or
/// forever) to add to or subtract from a `DispatchTime` or `DispatchWallTime`.
///
/// Every amount converts to nanoseconds in an `Int64`, saturating at its bounds: so
/// `.seconds(Int.max)` is as far as `.nanoseconds(Int.max)`. Two intervals are equal when
/// they span the same number of nanoseconds (`.seconds(1) == .milliseconds(1000)`), except
/// that `.never` equals only `.never`.
public enum DispatchTimeInterval: Equatable, Sendable {
    /// A number of seconds.
    case seconds(Int)
    /// A number of milliseconds.
    case milliseconds(Int)
    /// A number of microseconds.
    case microseconds(Int)
    /// A number of nanoseconds.
    case nanoseconds(Int)
    /// An unending span: adding it to a time gives `distantFuture`.
    case never

    /// Whether two intervals span the same time: `.never` equals only itself; any other two
    /// compare their lengths in nanoseconds (saturated to `Int64`), whatever their units.
    @inlinable
    public static func == (lhs: DispatchTimeInterval, rhs: DispatchTimeInterval) -> Bool {
        switch (lhs, rhs) {
        case (.never, .never): return true
        case (.never, _), (_, .never): return false
        default: return lhs.saturatingNanoseconds == rhs.saturatingNanoseconds
        }
    }

    /// The interval in nanoseconds, clamped to `Int64.min ... Int64.max`; `.never` is
    /// `Int64.max`. This is the delta the time arithmetic applies.
    @inlinable
    var saturatingNanoseconds: Int64 {
        switch self {
        case .seconds(let count): return Self.scale(count, by: 1_000_000_000)
        case .milliseconds(let count): return Self.scale(count, by: 1_000_000)
        case .microseconds(let count): return Self.scale(count, by: 1_000)
        case .nanoseconds(let count): return Int64(count)
        case .never: return .max
        }
    }

    /// `count * unit`, saturating to `Int64.max` or `Int64.min` on overflow.
    @inlinable
    static func scale(_ count: Int, by unit: Int64) -> Int64 {
        let (product, overflow) = Int64(count).multipliedReportingOverflow(by: unit)
        if overflow { return count > 0 ? .max : .min }
        return product
    }
}
