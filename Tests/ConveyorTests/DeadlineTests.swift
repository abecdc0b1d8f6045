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

import Testing
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif

// The helpers in Time/Deadline.swift that turn public times into what timers and waits use.

private let limit: UInt64 = (1 << 62) - 1
private let base = DispatchTime(uptimeNanoseconds: 1_000_000_000_000)
private let wallBase = DispatchWallTime(timespec: timespec(tv_sec: 1000, tv_nsec: 0))

private func uptime(_ nanoseconds: UInt64) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: nanoseconds)
}

private func wall(_ nanoseconds: UInt64) -> DispatchWallTime {
    DispatchWallTime(timespec: timespec(tv_sec: Int(nanoseconds / 1_000_000_000),
                                        tv_nsec: Int(nanoseconds % 1_000_000_000)))
}

@Suite struct DeadlineTests {
    @Test func monotonicDeadline() {
        #expect(base.monotonicDeadline == 1_000_000_000_000)
        #expect(uptime(1).monotonicDeadline == 1)
        #expect(uptime(limit).monotonicDeadline == limit)
        #expect(uptime(limit + 1).monotonicDeadline == UInt64.max)
        #expect(uptime(1 << 63).monotonicDeadline == UInt64.max)
        #expect(DispatchTime.distantFuture.monotonicDeadline == UInt64.max)
        let before = Clock.monotonicNanoseconds()
        let now = uptime(0).monotonicDeadline
        #expect(before <= now && now <= Clock.monotonicNanoseconds())
    }

    @Test func monotonicTimeRemaining() {
        #expect(base.nanosecondsRemaining(now: 999_999_999_000) == 1_000)
        #expect(base.nanosecondsRemaining(now: 1_000_000_000_000) == 0)
        #expect(base.nanosecondsRemaining(now: 2_000_000_000_000) == 0)
        #expect(uptime(0).nanosecondsRemaining(now: 5) == 0)
        #expect(uptime(limit).nanosecondsRemaining(now: 0) == Int64(limit))
        #expect(uptime(limit + 1).nanosecondsRemaining(now: 0) == nil)
        #expect(DispatchTime.distantFuture.nanosecondsRemaining() == nil)
        #expect(uptime(1).nanosecondsRemaining() == 0)
        let remaining = (DispatchTime.now() + .seconds(10)).nanosecondsRemaining()
        #expect(remaining.map { $0 > 9_000_000_000 && $0 <= 10_000_000_000 } == true)
    }

    @Test func realtimeDeadline() {
        #expect(wallBase.realtimeDeadline == 1_000_000_000_000)
        #expect(wall(3).realtimeDeadline == 3)
        #expect(wall(limit).realtimeDeadline == limit)
        #expect(wall(1 << 62).realtimeDeadline == UInt64.max)
        #expect(DispatchWallTime.distantFuture.realtimeDeadline == UInt64.max)
        let before = Clock.realtimeNanoseconds()
        let now = wall(2).realtimeDeadline
        #expect(before <= now && now <= Clock.realtimeNanoseconds())
    }

    @Test func realtimeTimeRemaining() {
        #expect(wallBase.nanosecondsRemaining(now: 999_999_999_000) == 1_000)
        #expect(wallBase.nanosecondsRemaining(now: 1_000_000_000_000) == 0)
        #expect(wallBase.nanosecondsRemaining(now: 3_000_000_000_000) == 0)
        #expect(wall(2).nanosecondsRemaining(now: 1) == 0)
        #expect(wall(3).nanosecondsRemaining(now: 1) == 2)
        #expect(wall(1 << 62).nanosecondsRemaining(now: 0) == nil)
        #expect(DispatchWallTime.distantFuture.nanosecondsRemaining() == nil)
        #expect(wallBase.nanosecondsRemaining() == 0)
        let remaining = (DispatchWallTime.now() + .seconds(10)).nanosecondsRemaining()
        #expect(remaining.map { $0 > 9_000_000_000 && $0 <= 10_000_000_000 } == true)
    }

    @Test func intervalTimeoutNanoseconds() {
        #expect(DispatchTimeInterval.never.timeoutNanoseconds == nil)
        #expect(DispatchTimeInterval.seconds(2).timeoutNanoseconds == 2_000_000_000)
        #expect(DispatchTimeInterval.seconds(-2).timeoutNanoseconds == 0)
        #expect(DispatchTimeInterval.seconds(Int.max).timeoutNanoseconds == Int64.max)
    }

    /// A deadline on the clock that counts sleep (what Swift concurrency passes for
    /// `ContinuousClock`), converted while the converting thread is preempted between its
    /// reads of the two clocks: the monotonic deadline may come out late, never early. The
    /// clocks here are fakes that advance 10 µs at every read, a preemption each time.
    @Test func continuousDeadlinesNeverComeOutEarly() {
        let offset: UInt64 = 5_000_000_000   // boot time runs this far ahead of uptime
        for (delay, start) in [(UInt64(500_000), UInt64(1_000_000_000)), (8_000, 77_000_000), (1, 3_000_000_000)] {
            var now = start
            let uptime = { () -> UInt64 in now += 10_000; return now }
            let boottime = { () -> UInt64 in now += 10_000; return now + offset }
            let target = start + offset + delay + 1_000_000   // on the boot-time clock, after every read
            let converted = CTime.continuousToUptime(target, uptimeClock: uptime, boottimeClock: boottime)
            let late = Int64(bitPattern: converted &- (target - offset))
            #expect(late >= 0, "converted \(-late) ns early")
            #expect(late <= 10_000, "late by more than one preemption: \(late) ns")
        }
        // Clocks read close together are used as read: exact.
        var now: UInt64 = 1_000_000
        let uptime = { () -> UInt64 in now += 100; return now }
        let boottime = { () -> UInt64 in now += 100; return now + offset }
        let exact = CTime.continuousToUptime(2_000_000 + offset, uptimeClock: uptime, boottimeClock: boottime)
        #expect(exact >= 2_000_000 && exact <= 2_000_100)
    }
}
