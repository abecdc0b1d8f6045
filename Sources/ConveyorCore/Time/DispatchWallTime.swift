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

/// A point in time on the wall clock (`CLOCK_REALTIME`: the calendar time, which can be set
/// or stepped): a deadline that follows changes to the system's date and time, for waits
/// and timers that must fire at a given time of day.
///
/// `rawValue` keeps libdispatch's Linux encoding: the two's-complement negation of the
/// nanoseconds since the Unix epoch, so a wall time has its high bit set, and a later time
/// has a smaller raw value. `UInt64.max` (1 ns after the epoch) is `distantFuture`; `~1`
/// (2 ns after the epoch) is read by arithmetic as "now". Use comparisons, not `rawValue`,
/// to order wall times. Arithmetic saturates: a result at or beyond 2^62 − 1 ns after the
/// epoch becomes `distantFuture`, one at or before 1 ns after the epoch becomes `~1`.
public struct DispatchWallTime: Comparable, Sendable {
    /// The encoded time: `0 &- nanosecondsSinceEpoch`, or `UInt64.max` for `distantFuture`.
    public let rawValue: UInt64

    @usableFromInline
    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The current time on the wall clock.
    @inlinable
    public static func now() -> DispatchWallTime {
        DispatchWallTime(rawValue: 0 &- Clock.realtimeNanoseconds())
    }

    /// A time later than any other: a deadline that never passes.
    public static let distantFuture = DispatchWallTime(rawValue: TimeEncoding.forever)

    /// Creates a wall time from a time since the Unix epoch. `tv_nsec` need not be
    /// normalized (it may be negative or exceed a second). As in Dispatch, a time no later
    /// than 1 ns after the epoch gives `distantFuture`, and so does one whose nanosecond
    /// count does not fit in `Int64` (where Dispatch's count wraps around).
    ///
    /// - Parameter timespec: Seconds and nanoseconds since 1970-01-01 00:00:00 UTC.
    public init(timespec: timespec) {
        let (scaled, overflowed) = Int64(timespec.tv_sec)
            .multipliedReportingOverflow(by: TimeEncoding.nanosecondsPerSecond)
        let (nanoseconds, carried) = scaled.addingReportingOverflow(Int64(timespec.tv_nsec))
        if overflowed || carried || nanoseconds <= 1 {
            self.rawValue = TimeEncoding.forever
        } else {
            self.rawValue = 0 &- UInt64(nanoseconds)
        }
    }

    /// Whether `a` comes before `b`; `distantFuture` comes after every other time.
    @inlinable
    public static func < (a: DispatchWallTime, b: DispatchWallTime) -> Bool {
        if b.rawValue == TimeEncoding.forever { return a.rawValue != TimeEncoding.forever }
        if a.rawValue == TimeEncoding.forever { return false }
        return Int64(bitPattern: 0 &- a.rawValue) < Int64(bitPattern: 0 &- b.rawValue)
    }

    /// Whether two times are the same instant (their raw values are equal).
    @inlinable
    public static func == (a: DispatchWallTime, b: DispatchWallTime) -> Bool {
        a.rawValue == b.rawValue
    }

    /// Nanoseconds since the epoch this time stands for, the current real time for the
    /// "now" encoding, or nil for forever (including values past the limit).
    @inlinable
    var epochNanoseconds: UInt64? {
        if rawValue == TimeEncoding.forever { return nil }
        if rawValue == TimeEncoding.wallNow { return Clock.realtimeNanoseconds() }
        let nanoseconds = 0 &- rawValue
        return nanoseconds > TimeEncoding.limit ? nil : nanoseconds
    }

    /// This time moved by `delta` nanoseconds, saturating: forever stays, the "now" encoding
    /// starts from the current time, a result at or past the limit becomes `distantFuture`,
    /// one at or before 1 ns after the epoch becomes the "now" encoding (2 ns).
    @inlinable
    func adding(nanoseconds delta: Int64) -> DispatchWallTime {
        guard let value = epochNanoseconds,
              let moved = TimeEncoding.offset(value, by: delta, floor: 2)
        else { return DispatchWallTime(rawValue: TimeEncoding.forever) }
        return DispatchWallTime(rawValue: 0 &- moved)
    }
}

/// The wall time `interval` after `time`; `.never` or an overflow gives `distantFuture`,
/// and a result at or before the epoch saturates to 2 ns after it.
@inlinable
public func + (time: DispatchWallTime, interval: DispatchTimeInterval) -> DispatchWallTime {
    time.adding(nanoseconds: interval.saturatingNanoseconds)
}

/// The wall time `interval` before `time`, saturating like `+`.
@inlinable
public func - (time: DispatchWallTime, interval: DispatchTimeInterval) -> DispatchWallTime {
    time.adding(nanoseconds: TimeEncoding.negated(interval.saturatingNanoseconds))
}

/// The wall time `seconds` after `time`, truncated to whole nanoseconds. An infinite, NaN
/// or too-large amount gives `distantFuture`.
@inlinable
public func + (time: DispatchWallTime, seconds: Double) -> DispatchWallTime {
    time.adding(nanoseconds: TimeEncoding.nanoseconds(fromSeconds: seconds))
}

/// The wall time `seconds` before `time`, truncated to whole nanoseconds and saturating
/// like `+` (NaN, too, gives `distantFuture`).
@inlinable
public func - (time: DispatchWallTime, seconds: Double) -> DispatchWallTime {
    time.adding(nanoseconds: TimeEncoding.nanoseconds(fromSeconds: -seconds))
}
