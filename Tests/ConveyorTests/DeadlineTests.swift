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
}
