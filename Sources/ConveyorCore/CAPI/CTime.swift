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

import CConveyor
#if canImport(Glibc)
import Glibc
#endif

// dispatch_time and dispatch_walltime: the C side of `DispatchTime` and
// `DispatchWallTime`, whose raw values already use libdispatch's Linux encoding.
enum CTime {
    enum Decoded {
        case forever
        case uptime(DispatchTime)
        case wall(DispatchWallTime)
    }

    /// A `dispatch_time_t`: forever; a monotonic time (bit 63 clear); a wall time (bits 63
    /// and 62 set: the negated nanoseconds since the epoch, or ~1 for now); or, bit 63 set
    /// and bit 62 clear, a time on the clock that counts while the machine sleeps
    /// (CLOCK_BOOTTIME on Linux), which Swift concurrency's runtime passes for
    /// `ContinuousClock` deadlines. The last is converted to the monotonic clock at the
    /// call: a suspend that happens after it delays such a deadline by its length.
    static func decode(_ value: UInt64) -> Decoded {
        if value == TimeEncoding.forever { return .forever }
        if value & (1 << 63) != 0 {
            if value & (1 << 62) != 0 { return .wall(DispatchWallTime(rawValue: value)) }
            return .uptime(DispatchTime(rawValue: continuousToUptime(value & ~(1 << 63))))
        }
        return .uptime(DispatchTime(rawValue: value))
    }

    /// A CLOCK_BOOTTIME reading as the CLOCK_MONOTONIC reading of the same moment, never
    /// earlier. The two clocks are read one after the other: the boot-time clock first, so
    /// that a preemption between the reads makes the deadline later by its length, not
    /// earlier (read the other way, a `Task.sleep` under the drop-in library ended 8 µs
    /// early about once in 24,000 sleeps). A pair of reads more than 2 µs apart is taken
    /// again (up to four times), to keep that lateness small. The clocks are parameters
    /// for the tests.
    static func continuousToUptime(_ boottime: UInt64, uptimeClock: () -> UInt64 = { cnv_monotonic_ns() },
                                   boottimeClock: () -> UInt64 = { cnv_boottime_ns() }) -> UInt64 {
        var boottimeNow = boottimeClock()
        var uptimeNow = uptimeClock()
        for _ in 0..<3 {
            let boottimeAfter = boottimeClock()
            if boottimeAfter &- boottimeNow <= 2_000 { break }
            boottimeNow = boottimeAfter
            uptimeNow = uptimeClock()
        }
        if boottime <= boottimeNow { return uptimeNow == 0 ? 1 : uptimeNow }   // due now (0 would read as DISPATCH_TIME_NOW)
        return uptimeNow + (boottime - boottimeNow)
    }

    /// Waits with a `dispatch_time_t` timeout: 0 on success, non-zero on timeout.
    static func wait(_ timeout: UInt64, uptime: (DispatchTime) -> DispatchTimeoutResult,
                     wall: (DispatchWallTime) -> DispatchTimeoutResult) -> Int {
        let result: DispatchTimeoutResult
        switch decode(timeout) {
        case .forever: result = uptime(.distantFuture)
        case .uptime(let deadline): result = uptime(deadline)
        case .wall(let deadline): result = wall(deadline)
        }
        if result == .success { return 0 }
        // What libdispatch answers on Linux: -1, with errno set (its _DSEMA4_TIMEOUT).
        errno = ETIMEDOUT
        return -1
    }
}

/// `dispatch_time`: `when` plus `delta` nanoseconds, on `when`'s clock. A time on the clock
/// that counts sleep (bit 63 alone) comes back as a monotonic time (see `CTime.decode`),
/// where libdispatch keeps its clock: the two differ only across a suspend of the machine.
@_cdecl("cnv_dispatch_time")
package func cnv_dispatch_time(_ when: UInt64, _ delta: Int64) -> UInt64 {
    switch CTime.decode(when) {
    case .forever: return TimeEncoding.forever
    case .uptime(let time): return (time + .nanoseconds(Int(delta))).rawValue
    case .wall(let time): return (time + .nanoseconds(Int(delta))).rawValue
    }
}

/// `dispatch_walltime`: as libdispatch computes it, the delta is added to the nanoseconds
/// since the epoch first, and only the sum is clamped (at or before 1 ns: forever for a
/// delta that is not negative, else the earliest wall time). Converting the timespec
/// first made `{0, 0}` plus any delta forever, and a wait on it never ended.
@_cdecl("cnv_dispatch_walltime")
package func cnv_dispatch_walltime(_ when: UnsafePointer<timespec>?, _ delta: Int64) -> UInt64 {
    // Now, for NULL; wrapping, as libdispatch's C arithmetic does on the machines it runs on.
    let start = when.map { Int64($0.pointee.tv_sec) &* 1_000_000_000 &+ Int64($0.pointee.tv_nsec) }
        ?? Int64(bitPattern: Clock.realtimeNanoseconds())
    let nanoseconds = start &+ delta
    if nanoseconds <= 1 { return delta >= 0 ? TimeEncoding.forever : UInt64(bitPattern: -2) }
    return UInt64(bitPattern: -nanoseconds)
}
