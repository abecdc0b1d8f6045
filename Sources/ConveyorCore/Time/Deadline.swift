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

// What the runtime needs from the public time types: absolute deadlines on a kernel clock
// (for timerfds and timer heaps) and relative timeouts (for futex waits).

extension DispatchTime {
    /// The deadline in nanoseconds of `CLOCK_MONOTONIC`, or `UInt64.max` for forever (the
    /// raw value `UInt64.max`, or any value past the encoding's limit). The raw value 0
    /// ("now") gives the current time, so the result is never 0 — which matters to a timerfd,
    /// where 0 disarms.
    @inlinable
    var monotonicDeadline: UInt64 {
        if rawValue > TimeEncoding.limit { return .max }
        if rawValue == TimeEncoding.uptimeNow { return Clock.monotonicNanoseconds() }
        return rawValue
    }

    /// Nanoseconds from now until this deadline: nil for forever, 0 once it has passed.
    /// Suits `FutexWord.wait(expected:timeoutNanoseconds:)` directly.
    @inlinable
    func nanosecondsRemaining() -> Int64? {
        nanosecondsRemaining(now: Clock.monotonicNanoseconds())
    }

    /// Nanoseconds from `now` (a reading of `CLOCK_MONOTONIC`) until this deadline: nil for
    /// forever, 0 if it is not after `now`.
    @inlinable
    func nanosecondsRemaining(now: UInt64) -> Int64? {
        if rawValue > TimeEncoding.limit { return nil }
        // Below the limit (2^62), so the difference fits in Int64.
        return rawValue > now ? Int64(rawValue &- now) : 0
    }
}

extension DispatchWallTime {
    /// The deadline in nanoseconds since the epoch on `CLOCK_REALTIME`, or `UInt64.max` for
    /// forever. The "now" encoding gives the current real time, so the result is never 0.
    @inlinable
    var realtimeDeadline: UInt64 {
        epochNanoseconds ?? .max
    }

    /// Nanoseconds from now until this deadline on the wall clock: nil for forever, 0 once
    /// it has passed. A later change to the wall clock does not move a timeout already
    /// computed; re-derive it after each wake-up.
    @inlinable
    func nanosecondsRemaining() -> Int64? {
        nanosecondsRemaining(now: Clock.realtimeNanoseconds())
    }

    /// Nanoseconds from `now` (a reading of `CLOCK_REALTIME`) until this deadline: nil for
    /// forever, 0 if it is not after `now`. The "now" encoding is taken as `now`.
    @inlinable
    func nanosecondsRemaining(now: UInt64) -> Int64? {
        if rawValue == TimeEncoding.forever { return nil }
        if rawValue == TimeEncoding.wallNow { return 0 }
        let deadline = 0 &- rawValue
        if deadline > TimeEncoding.limit { return nil }
        return deadline > now ? Int64(deadline &- now) : 0
    }
}

extension DispatchTimeInterval {
    /// The interval in nanoseconds for a relative wait: `.never` is nil, a negative span 0.
    @inlinable
    var timeoutNanoseconds: Int64? {
        if case .never = self { return nil }
        return max(saturatingNanoseconds, 0)
    }
}
