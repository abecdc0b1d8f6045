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

/// A point in time on the system's monotonic clock (`CLOCK_MONOTONIC`: nanoseconds since
/// boot, not counting suspend, never set back): the deadline type for `asyncAfter`,
/// semaphore, group and work-item waits, and timer sources.
///
/// `rawValue` is the nanosecond count itself, with two special values as in libdispatch:
/// `UInt64.max` is `distantFuture`, and `0` is read by arithmetic as "now" (so
/// `DispatchTime(uptimeNanoseconds: 0) + .seconds(1)` is one second from now). Arithmetic
/// saturates: a result at or beyond 2^62 − 1 ns becomes `distantFuture`, one below 1 becomes 1.
public struct DispatchTime: Comparable, Sendable {
    /// The time in nanoseconds of `CLOCK_MONOTONIC`; `UInt64.max` for `distantFuture`.
    public let rawValue: UInt64

    @usableFromInline
    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The current time on the monotonic clock.
    @inlinable
    public static func now() -> DispatchTime {
        DispatchTime(rawValue: Clock.monotonicNanoseconds())
    }

    /// A time later than any other: a deadline that never passes.
    public static let distantFuture = DispatchTime(rawValue: TimeEncoding.forever)

    /// Creates a time from a number of nanoseconds since boot on the monotonic clock (the
    /// clock `now()` reads). `UInt64.max` gives `distantFuture`; `0` is kept as given but
    /// arithmetic reads it as "now".
    ///
    /// - Parameter uptimeNanoseconds: Nanoseconds since boot, excluding time asleep.
    @inlinable
    public init(uptimeNanoseconds: UInt64) {
        self.rawValue = uptimeNanoseconds
    }

    /// The time as nanoseconds since boot on the monotonic clock (`UInt64.max` for
    /// `distantFuture`).
    @inlinable
    public var uptimeNanoseconds: UInt64 { rawValue }

    /// Whether `a` comes before `b`; `distantFuture` comes after every other time.
    @inlinable
    public static func < (a: DispatchTime, b: DispatchTime) -> Bool {
        a.rawValue < b.rawValue
    }

    /// Whether two times are the same instant (their raw values are equal).
    @inlinable
    public static func == (a: DispatchTime, b: DispatchTime) -> Bool {
        a.rawValue == b.rawValue
    }

    /// This time moved by `delta` nanoseconds, saturating: `distantFuture` stays, a raw 0
    /// starts from the current time, a result at or past the limit becomes `distantFuture`,
    /// one below 1 becomes 1.
    @inlinable
    func adding(nanoseconds delta: Int64) -> DispatchTime {
        var value = rawValue
        if value > TimeEncoding.limit { return DispatchTime(rawValue: TimeEncoding.forever) }
        if value == TimeEncoding.uptimeNow { value = Clock.monotonicNanoseconds() }
        let moved = TimeEncoding.offset(value, by: delta, floor: 1) ?? TimeEncoding.forever
        return DispatchTime(rawValue: moved)
    }
}

/// The time `interval` after `time`; `.never` or an overflow gives `distantFuture`, and a
/// result before the clock's start gives the earliest time (raw value 1).
@inlinable
public func + (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
    time.adding(nanoseconds: interval.saturatingNanoseconds)
}

/// The time `interval` before `time`, saturating like `+`; subtracting `.never` gives the
/// earliest time (raw value 1).
@inlinable
public func - (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
    time.adding(nanoseconds: TimeEncoding.negated(interval.saturatingNanoseconds))
}

/// The time `seconds` after `time`, truncated to whole nanoseconds. An infinite, NaN or
/// too-large amount gives `distantFuture`; a negative one moves back, to raw value 1 at least.
@inlinable
public func + (time: DispatchTime, seconds: Double) -> DispatchTime {
    time.adding(nanoseconds: TimeEncoding.nanoseconds(fromSeconds: seconds))
}

/// The time `seconds` before `time`, truncated to whole nanoseconds and saturating like `+`
/// (NaN, too, gives `distantFuture`).
@inlinable
public func - (time: DispatchTime, seconds: Double) -> DispatchTime {
    time.adding(nanoseconds: TimeEncoding.nanoseconds(fromSeconds: -seconds))
}
