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

/// The rules behind the `rawValue` of `DispatchTime` and `DispatchWallTime`, shared by both.
///
/// Conveyor keeps libdispatch's Linux encoding so that `rawValue` reads the same under either
/// module:
///
/// - `UInt64.max` is "forever" (`DISPATCH_TIME_FOREVER`) on both clocks.
/// - A `DispatchTime` holds nanoseconds of `CLOCK_MONOTONIC`; `0` means "now"
///   (`DISPATCH_TIME_NOW`), so arithmetic on `DispatchTime(uptimeNanoseconds: 0)` starts from
///   the current time.
/// - A `DispatchWallTime` holds the two's-complement negation of nanoseconds since the Unix
///   epoch on `CLOCK_REALTIME` (so its high bit is set); `~1` (2 ns after the epoch) means
///   "now" (`DISPATCH_WALLTIME_NOW`).
/// - Clock values at or above `limit` (2^62 − 1 ns, about 146 years) cannot come out of
///   arithmetic: they saturate to forever, as in libdispatch.
@usableFromInline
enum TimeEncoding {
    /// The raw value that means "never": `DispatchTime.distantFuture`, `DispatchWallTime.distantFuture`.
    @inlinable static var forever: UInt64 { .max }

    /// The raw `DispatchTime` value that arithmetic reads as the current monotonic time.
    @inlinable static var uptimeNow: UInt64 { 0 }

    /// The raw `DispatchWallTime` value that arithmetic reads as the current real time.
    @inlinable static var wallNow: UInt64 { ~1 }

    /// The smallest clock value that counts as forever when produced by arithmetic; a larger
    /// one counts as forever when read (libdispatch's `DISPATCH_TIME_MAX_VALUE`).
    @inlinable static var limit: UInt64 { (1 << 62) - 1 }

    /// Nanoseconds in one second.
    @inlinable static var nanosecondsPerSecond: Int64 { 1_000_000_000 }

    /// `value` moved by `delta` nanoseconds, or nil when the result reaches `limit` (forever).
    /// A result below `floor` becomes `floor`: 1 on the monotonic clock (0 would mean "now"),
    /// 2 on the wall clock (1 would encode as forever).
    /// - Precondition: `value <= limit`, so the sum cannot overflow.
    @inlinable
    static func offset(_ value: UInt64, by delta: Int64, floor: UInt64) -> UInt64? {
        if delta >= 0 {
            let sum = value &+ UInt64(delta)
            return sum < limit ? sum : nil
        }
        let magnitude = delta.magnitude
        guard value > magnitude else { return floor }
        let difference = value &- magnitude
        return difference >= floor ? difference : floor
    }

    /// `-delta`, with `Int64.min` (whose negation does not fit) saturating to `Int64.max`.
    @inlinable
    static func negated(_ delta: Int64) -> Int64 {
        delta == .min ? .max : -delta
    }

    /// `seconds` in whole nanoseconds, truncated toward zero and clamped to `Int64`;
    /// NaN counts as `Int64.max` (forever), as in Dispatch.
    @inlinable
    static func nanoseconds(fromSeconds seconds: Double) -> Int64 {
        let nanoseconds = seconds * Double(nanosecondsPerSecond)
        // 2^63 is the first Double past Int64.max; -2^63 is exactly Int64.min.
        if nanoseconds.isNaN || nanoseconds >= 9_223_372_036_854_775_808.0 { return .max }
        if nanoseconds <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(nanoseconds)
    }
}
