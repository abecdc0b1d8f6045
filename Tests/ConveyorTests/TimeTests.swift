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

// Expected values were observed from the toolchain's own Dispatch (Swift 6.3.1, Linux);
// the few places where Conveyor deliberately differs say so.

/// 2^62 − 1: the first clock value that arithmetic turns into forever.
private let limit: UInt64 = (1 << 62) - 1
private let forever = UInt64.max
/// libdispatch's DISPATCH_WALLTIME_NOW, also the floor of wall-time arithmetic.
private let wallNow: UInt64 = ~1
/// A monotonic time well away from both ends: 1000 s of uptime.
private let base = DispatchTime(uptimeNanoseconds: 1_000_000_000_000)
/// A wall time 1000 s after the epoch.
private let wallBase = DispatchWallTime(timespec: timespec(tv_sec: 1000, tv_nsec: 0))

private func uptime(_ nanoseconds: UInt64) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: nanoseconds)
}

/// The wall time `nanoseconds` after the epoch, built through `init(timespec:)`.
private func wall(_ nanoseconds: UInt64) -> DispatchWallTime {
    DispatchWallTime(timespec: timespec(tv_sec: Int(nanoseconds / 1_000_000_000),
                                        tv_nsec: Int(nanoseconds % 1_000_000_000)))
}

/// Nanoseconds after the epoch of a finite wall time's raw value.
private func epochNanoseconds(_ time: DispatchWallTime) -> UInt64 { 0 &- time.rawValue }

private func requireSendable<T: Sendable>(_: T.Type) {}

@Suite struct DispatchTimeTests {
    @Test func nowReadsTheMonotonicClock() {
        let before = Clock.monotonicNanoseconds()
        let now = DispatchTime.now()
        let after = Clock.monotonicNanoseconds()
        #expect(before <= now.rawValue && now.rawValue <= after)
        #expect(now.uptimeNanoseconds == now.rawValue)
    }

    @Test(arguments: [0, 1, limit, 1 << 62, 1 << 63, forever - 1, forever])
    func uptimeNanosecondsIsTheRawValueUnchanged(_ value: UInt64) {
        #expect(uptime(value).rawValue == value)
        #expect(uptime(value).uptimeNanoseconds == value)
    }

    @Test func distantFutureIsTheLargestRawValue() {
        #expect(DispatchTime.distantFuture.rawValue == forever)
        #expect(uptime(forever) == .distantFuture)
    }

    @Test func comparisonFollowsTheRawValue() {
        #expect(uptime(0) < uptime(1))
        #expect(uptime(0) < .now())
        #expect(uptime(0) != .now())
        #expect(DispatchTime.now() < .distantFuture)
        #expect(!(DispatchTime.distantFuture < .now()))
        #expect(!(DispatchTime.distantFuture < .distantFuture))
        #expect(uptime(1 << 63) < .distantFuture)
        #expect(uptime(forever - 1) < uptime(forever))
        #expect(base == uptime(1_000_000_000_000))
        #expect(base <= base && base >= base && !(base < base))
    }

    @Test func addsAndSubtractsEachUnit() {
        #expect((base + .seconds(1)).rawValue == 1_001_000_000_000)
        #expect((base - .seconds(1)).rawValue == 999_000_000_000)
        #expect((base + .seconds(-1)).rawValue == 999_000_000_000)
        #expect((base + .milliseconds(5)).rawValue == 1_000_005_000_000)
        #expect((base - .milliseconds(5)).rawValue == 999_995_000_000)
        #expect((base + .microseconds(5)).rawValue == 1_000_000_005_000)
        #expect((base - .microseconds(-5)).rawValue == 1_000_000_005_000)
        #expect((base + .nanoseconds(5)).rawValue == 1_000_000_000_005)
        #expect((base - .nanoseconds(5)).rawValue == 999_999_999_995)
        #expect((base + .seconds(0)).rawValue == base.rawValue)
    }

    @Test func neverAndHugeIntervalsSaturate() {
        #expect(base + .never == .distantFuture)
        #expect((base - .never).rawValue == 1)
        #expect(base + .seconds(Int.max) == .distantFuture)
        #expect((base - .seconds(Int.max)).rawValue == 1)
        #expect((base + .seconds(Int.min)).rawValue == 1)
        #expect(base + .milliseconds(Int.max) == .distantFuture)
        #expect((base + .microseconds(Int.min)).rawValue == 1)
        #expect(base + .nanoseconds(Int.max) == .distantFuture)
        #expect((base - .nanoseconds(Int.max)).rawValue == 1)
        #expect((base + .nanoseconds(Int.min)).rawValue == 1)
        // Fits in Int64 but overflows the sum.
        #expect(base + .seconds(9_223_372_036) == .distantFuture)
        #expect(base + .seconds(4_611_686_017) == .distantFuture)
    }

    // Dispatch traps here (it negates Int64.min); Conveyor saturates.
    @Test func subtractingTheMostNegativeIntervalSaturates() {
        #expect(base - .seconds(Int.min) == .distantFuture)
        #expect(base - .nanoseconds(Int.min) == .distantFuture)
        #expect(wallBase - .seconds(Int.min) == .distantFuture)
        #expect(wallBase - .nanoseconds(Int.min) == .distantFuture)
    }

    @Test func underflowStopsAtOneNotZero() {
        #expect((base - .seconds(999)).rawValue == 1_000_000_000)
        #expect((base - .seconds(1000)).rawValue == 1)
        #expect((base - .seconds(2000)).rawValue == 1)
        #expect((uptime(1) - .nanoseconds(1)).rawValue == 1)
        #expect((uptime(2) - .nanoseconds(1)).rawValue == 1)
        #expect((uptime(1) + .nanoseconds(0)).rawValue == 1)
    }

    @Test func theLimitIsTwoToTheSixtySecondMinusOne() {
        #expect((uptime(limit - 1) + .nanoseconds(0)).rawValue == limit - 1)
        #expect((uptime(limit - 2) + .nanoseconds(1)).rawValue == limit - 1)
        #expect(uptime(limit - 1) + .nanoseconds(1) == .distantFuture)
        #expect(uptime(limit) + .nanoseconds(0) == .distantFuture)
        #expect((uptime(limit) - .nanoseconds(1)).rawValue == limit - 1)
        #expect((uptime(limit - 1) - .nanoseconds(1)).rawValue == limit - 2)
        #expect(uptime(1 << 62) + .seconds(1) == .distantFuture)
        #expect(uptime(1 << 62) - .seconds(1) == .distantFuture)
    }

    @Test func distantFutureAbsorbsArithmetic() {
        #expect(DispatchTime.distantFuture + .seconds(1) == .distantFuture)
        #expect(DispatchTime.distantFuture - .seconds(1) == .distantFuture)
        #expect(DispatchTime.distantFuture - .never == .distantFuture)
        #expect(DispatchTime.distantFuture + 1.0 == .distantFuture)
        #expect(DispatchTime.distantFuture - 1.0 == .distantFuture)
    }

    // Above the limit Dispatch reads the top two bits as other clocks (boot time, wall
    // time); Conveyor treats every such value as forever.
    @Test func valuesAboveTheLimitCountAsForever() {
        #expect(uptime(1 << 63) + .seconds(1) == .distantFuture)
        #expect(uptime(forever - 1) + .seconds(1) == .distantFuture)
        #expect(uptime(0xC000_0000_0000_0005) - .seconds(1) == .distantFuture)
    }

    @Test func rawZeroMeansNowInArithmetic() {
        let before = Clock.monotonicNanoseconds()
        let later = uptime(0) + .seconds(1)
        let same = uptime(0) + .nanoseconds(0)
        let earlier = uptime(0) - .seconds(1)
        let backwards = uptime(0) + (-1.0)
        let after = Clock.monotonicNanoseconds()
        #expect(before + 1_000_000_000 <= later.rawValue && later.rawValue <= after + 1_000_000_000)
        #expect(before <= same.rawValue && same.rawValue <= after)
        #expect(before - 1_000_000_000 <= earlier.rawValue && earlier.rawValue <= after - 1_000_000_000)
        #expect(before - 1_000_000_000 <= backwards.rawValue && backwards.rawValue <= after - 1_000_000_000)
        #expect(uptime(0) + .never == .distantFuture)
    }

    @Test func secondsAsDoubleTruncateToNanoseconds() {
        #expect((base + 1.5).rawValue == 1_001_500_000_000)
        #expect((base - 1.5).rawValue == 998_500_000_000)
        #expect((base + -1.5).rawValue == 998_500_000_000)
        #expect((base - -1.5).rawValue == 1_001_500_000_000)
        #expect((base + 0.1).rawValue == 1_000_100_000_000)
        #expect((base + 1e-10).rawValue == 1_000_000_000_000)
        #expect((base + 1.5e-9).rawValue == 1_000_000_000_001)
        #expect((base + 2.9e-9).rawValue == 1_000_000_000_002)
        #expect((base + 3e-9).rawValue == 1_000_000_000_003)
        #expect((base - 2.9e-9).rawValue == 999_999_999_998)
        #expect((base + -0.0).rawValue == base.rawValue)
        #expect((base + 0.0).rawValue == base.rawValue)
    }

    @Test func hugeInfiniteAndNaNSecondsSaturate() {
        #expect(base + 1e10 == .distantFuture)
        #expect(base + 1e30 == .distantFuture)
        #expect((base - 1e30).rawValue == 1)
        #expect((base + -1e30).rawValue == 1)
        #expect((base - 9.3e9).rawValue == 1)
        #expect(base + 9.2233720368547e9 == .distantFuture)
        #expect(base + Double.greatestFiniteMagnitude == .distantFuture)
        #expect((base - Double.greatestFiniteMagnitude).rawValue == 1)
        #expect((base + -9.223372036854775808e9).rawValue == 1)
        #expect(base + Double.infinity == .distantFuture)
        #expect((base - Double.infinity).rawValue == 1)
        #expect((base + -Double.infinity).rawValue == 1)
        #expect(base - -Double.infinity == .distantFuture)
        // NaN means forever whichever way it is applied.
        #expect(base + Double.nan == .distantFuture)
        #expect(base - Double.nan == .distantFuture)
        #expect(base + -Double.nan == .distantFuture)
        #expect(base + Double.signalingNaN == .distantFuture)
    }

    @Test func isSendable() {
        requireSendable(DispatchTime.self)
        requireSendable(DispatchWallTime.self)
        requireSendable(DispatchTimeInterval.self)
        requireSendable(DispatchTimeoutResult.self)
    }
}

@Suite struct DispatchWallTimeTests {
    @Test func nowIsTheNegatedRealTimeClock() {
        let before = Clock.realtimeNanoseconds()
        let now = DispatchWallTime.now()
        let after = Clock.realtimeNanoseconds()
        #expect(now.rawValue >> 62 == 0b11)
        #expect(before <= epochNanoseconds(now) && epochNanoseconds(now) <= after)
    }

    @Test func distantFutureIsTheLargestRawValue() {
        #expect(DispatchWallTime.distantFuture.rawValue == forever)
    }

    @Test func timespecEncodesNegatedNanoseconds() {
        #expect(wallBase.rawValue == 18_446_743_073_709_551_616)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 1, tv_nsec: 0)).rawValue == 0xFFFF_FFFF_C465_3600)
        #expect(epochNanoseconds(DispatchWallTime(timespec: timespec(tv_sec: 1, tv_nsec: 500_000_000))) == 1_500_000_000)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 1_700_000_000, tv_nsec: 123)).rawValue
                == 16_746_744_073_709_551_493)
        #expect(wall(3).rawValue == forever - 2)
        // 2 ns after the epoch is also the "now" encoding.
        #expect(wall(2).rawValue == wallNow)
    }

    @Test func timespecNeedNotBeNormalized() {
        #expect(epochNanoseconds(DispatchWallTime(timespec: timespec(tv_sec: 5, tv_nsec: -1))) == 4_999_999_999)
        #expect(epochNanoseconds(DispatchWallTime(timespec: timespec(tv_sec: 5, tv_nsec: 2_000_000_000))) == 7_000_000_000)
        #expect(epochNanoseconds(DispatchWallTime(timespec: timespec(tv_sec: -1, tv_nsec: 1_500_000_000))) == 500_000_000)
    }

    @Test func timespecAtOrBeforeTheEpochIsDistantFuture() {
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 0, tv_nsec: 0)) == .distantFuture)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 0, tv_nsec: 1)) == .distantFuture)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: -5, tv_nsec: 0)) == .distantFuture)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: Int.min, tv_nsec: 0)) == .distantFuture)
    }

    @Test func timespecBeyondTheLimitKeepsItsEncoding() {
        #expect(wall(1 << 62).rawValue == 0xC000_0000_0000_0000)
        #expect(wall(limit).rawValue == 0xC000_0000_0000_0001)
        #expect(wall((1 << 63) - 1).rawValue == 0x8000_0000_0000_0001)
    }

    // Dispatch's nanosecond count wraps around here (Int.max s gives distantFuture, but
    // 18446744074 s gives 0.29 s after the epoch); Conveyor gives distantFuture for both.
    @Test func timespecOverflowIsDistantFuture() {
        #expect(DispatchWallTime(timespec: timespec(tv_sec: Int.max, tv_nsec: 0)) == .distantFuture)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 18_446_744_074, tv_nsec: 0)) == .distantFuture)
        #expect(DispatchWallTime(timespec: timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_808)) == .distantFuture)
    }

    @Test func comparisonOrdersByTimeNotRawValue() {
        #expect(wallBase < wallBase + .seconds(1))
        #expect(!(wallBase + .seconds(1) < wallBase))
        #expect(wall(2) < wall(3))
        #expect(!(wall(5) < wall(5)))
        #expect(wall(1 << 62) < wall((1 << 62) + 1))
        #expect(wall((1 << 63) - 1) < .distantFuture)
        #expect(wallBase < .distantFuture)
        #expect(!(DispatchWallTime.distantFuture < wallBase))
        #expect(!(DispatchWallTime.distantFuture < .distantFuture))
        let now = DispatchWallTime.now()
        #expect(now < now + 1.0)
        #expect(now < wall(1 << 62))
        #expect(wallBase == wall(1_000_000_000_000))
    }

    @Test func addsAndSubtractsIntervals() {
        #expect(epochNanoseconds(wallBase + .seconds(1)) == 1_001_000_000_000)
        #expect(epochNanoseconds(wallBase - .seconds(1)) == 999_000_000_000)
        #expect(epochNanoseconds(wallBase + .milliseconds(-5)) == 999_995_000_000)
        #expect(epochNanoseconds(wallBase + .microseconds(5)) == 1_000_000_005_000)
        #expect(epochNanoseconds(wallBase - .nanoseconds(5)) == 999_999_999_995)
        #expect((wallBase + .seconds(1)).rawValue == 18_446_743_072_709_551_616)
    }

    @Test func intervalArithmeticSaturates() {
        #expect(wallBase + .never == .distantFuture)
        #expect((wallBase - .never).rawValue == wallNow)
        #expect(wallBase + .seconds(Int.max) == .distantFuture)
        #expect((wallBase - .seconds(Int.max)).rawValue == wallNow)
        #expect((wallBase + .nanoseconds(Int.min)).rawValue == wallNow)
        #expect((wallBase - .seconds(1000)).rawValue == wallNow)
        #expect((wallBase - .seconds(2000)).rawValue == wallNow)
        #expect(wallBase + .nanoseconds(Int.max) == .distantFuture)
        #expect(DispatchWallTime.distantFuture + .seconds(1) == .distantFuture)
        #expect(DispatchWallTime.distantFuture - .seconds(1) == .distantFuture)
        #expect(DispatchWallTime.distantFuture - .never == .distantFuture)
    }

    @Test func underflowStopsAtTwoNanosecondsAfterTheEpoch() {
        #expect((wallBase - .nanoseconds(1_000_000_000_000 - 3)).rawValue == forever - 2)
        #expect((wallBase - .nanoseconds(1_000_000_000_000 - 2)).rawValue == wallNow)
        #expect((wall(3) - .nanoseconds(1)).rawValue == wallNow)
        #expect((wall(3) + .nanoseconds(0)).rawValue == forever - 2)
    }

    // Dispatch lands on raw -1 here, which is distantFuture; Conveyor saturates to 2 ns.
    @Test func landingOnOneNanosecondAfterTheEpochIsNotForever() {
        #expect((wallBase - .nanoseconds(1_000_000_000_000 - 1)).rawValue == wallNow)
    }

    @Test func theLimitIsTwoToTheSixtySecondMinusOne() {
        #expect(epochNanoseconds(wall(limit - 2) + .nanoseconds(1)) == limit - 1)
        #expect(wall(limit - 1) + .nanoseconds(1) == .distantFuture)
        #expect(epochNanoseconds(wall(limit - 1) - .nanoseconds(1)) == limit - 2)
        #expect(wall(limit) + .seconds(0) == .distantFuture)
        #expect(wall(1 << 62) + .seconds(0) == .distantFuture)
        #expect(wall(1 << 62) - .nanoseconds(1) == .distantFuture)
        #expect(epochNanoseconds(wallBase + .nanoseconds(Int(limit) - 1_000_000_000_001)) == limit - 1)
        #expect(wallBase + .nanoseconds(Int(limit) - 1_000_000_000_000) == .distantFuture)
        // Dispatch reads this one as a boot-clock time and leaves it unchanged.
        #expect(wall((1 << 63) - 1) - .seconds(1) == .distantFuture)
    }

    @Test func theNowEncodingStartsFromTheCurrentTime() {
        let before = Clock.realtimeNanoseconds()
        let later = wall(2) + .seconds(1)
        let same = wall(2) + .seconds(0)
        let clamped = wallBase - .seconds(2000) + .seconds(1)
        let after = Clock.realtimeNanoseconds()
        #expect(before + 1_000_000_000 <= epochNanoseconds(later) && epochNanoseconds(later) <= after + 1_000_000_000)
        #expect(before <= epochNanoseconds(same) && epochNanoseconds(same) <= after)
        #expect(before + 1_000_000_000 <= epochNanoseconds(clamped) && epochNanoseconds(clamped) <= after + 1_000_000_000)
    }

    @Test func secondsAsDouble() {
        #expect(epochNanoseconds(wallBase + 1.5) == 1_001_500_000_000)
        #expect(epochNanoseconds(wallBase - 1.5) == 998_500_000_000)
        #expect(epochNanoseconds(wallBase + 0.5) == 1_000_500_000_000)
        #expect(epochNanoseconds(wallBase - -0.5) == 1_000_500_000_000)
        #expect(epochNanoseconds(wallBase + 2.9e-9) == 1_000_000_000_002)
        #expect(wallBase + Double.infinity == .distantFuture)
        #expect((wallBase - Double.infinity).rawValue == wallNow)
        #expect(wallBase - -Double.infinity == .distantFuture)
        #expect(wallBase + Double.nan == .distantFuture)
        #expect(wallBase - Double.nan == .distantFuture)
        #expect(wallBase + 1e30 == .distantFuture)
        #expect((wallBase - 1e30).rawValue == wallNow)
        #expect(DispatchWallTime.distantFuture - 1.0 == .distantFuture)
    }
}

@Suite struct DispatchTimeIntervalTests {
    @Test func nanosecondsOfEachUnit() {
        #expect(DispatchTimeInterval.seconds(3).saturatingNanoseconds == 3_000_000_000)
        #expect(DispatchTimeInterval.milliseconds(3).saturatingNanoseconds == 3_000_000)
        #expect(DispatchTimeInterval.microseconds(3).saturatingNanoseconds == 3_000)
        #expect(DispatchTimeInterval.nanoseconds(3).saturatingNanoseconds == 3)
        #expect(DispatchTimeInterval.seconds(-3).saturatingNanoseconds == -3_000_000_000)
        #expect(DispatchTimeInterval.never.saturatingNanoseconds == Int64.max)
    }

    @Test func nanosecondsSaturate() {
        #expect(DispatchTimeInterval.seconds(Int.max).saturatingNanoseconds == Int64.max)
        #expect(DispatchTimeInterval.seconds(Int.min).saturatingNanoseconds == Int64.min)
        #expect(DispatchTimeInterval.seconds(9_223_372_036).saturatingNanoseconds == 9_223_372_036_000_000_000)
        #expect(DispatchTimeInterval.seconds(9_223_372_037).saturatingNanoseconds == Int64.max)
        #expect(DispatchTimeInterval.seconds(-9_223_372_037).saturatingNanoseconds == Int64.min)
        #expect(DispatchTimeInterval.milliseconds(Int.max).saturatingNanoseconds == Int64.max)
        #expect(DispatchTimeInterval.microseconds(Int.min).saturatingNanoseconds == Int64.min)
        #expect(DispatchTimeInterval.nanoseconds(Int.min).saturatingNanoseconds == Int64.min)
    }

    @Test func equalityComparesLengthsAcrossUnits() {
        #expect(DispatchTimeInterval.seconds(1) == .milliseconds(1000))
        #expect(DispatchTimeInterval.milliseconds(1) == .microseconds(1000))
        #expect(DispatchTimeInterval.microseconds(1) == .nanoseconds(1000))
        #expect(DispatchTimeInterval.seconds(-1) == .milliseconds(-1000))
        #expect(DispatchTimeInterval.seconds(1) != .seconds(2))
        #expect(DispatchTimeInterval.seconds(1) != .milliseconds(1))
        // Saturated lengths compare equal…
        #expect(DispatchTimeInterval.seconds(Int.max) == .nanoseconds(Int.max))
        #expect(DispatchTimeInterval.seconds(Int.min) == .nanoseconds(Int.min))
        // …but never equals only never.
        #expect(DispatchTimeInterval.never == .never)
        #expect(DispatchTimeInterval.seconds(Int.max) != .never)
        #expect(DispatchTimeInterval.nanoseconds(Int.max) != .never)
        #expect(DispatchTimeInterval.never != .nanoseconds(Int.max))
    }
}

@Suite struct DispatchTimeoutResultTests {
    @Test func hasTwoDistinctHashableCases() {
        let results: Set<DispatchTimeoutResult> = [.success, .timedOut, .success]
        #expect(results.count == 2)
        #expect(DispatchTimeoutResult.success != .timedOut)
    }
}
