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

/// The kernel clock a timer's deadline is measured on.
enum TimerClock: UInt8, Sendable, CaseIterable {
    /// `CLOCK_MONOTONIC`, the clock of `DispatchTime` (does not move when the date is set).
    case monotonic = 0
    /// `CLOCK_REALTIME`, the clock of `DispatchWallTime` (follows changes to the date).
    case wall = 1

    /// Nanoseconds on this clock now.
    @inline(__always)
    func now() -> UInt64 {
        switch self {
        case .monotonic: return Clock.monotonicNanoseconds()
        case .wall: return Clock.realtimeNanoseconds()
        }
    }
}

/// Names one timer of an `EventLoop`: its clock, its slot in that clock's `TimerHeap` and
/// the slot's generation when the timer was made. A handle goes stale once its timer is
/// cancelled, or has fired without being rescheduled; every operation on a stale handle
/// is a harmless no-op (the slot's generation no longer matches).
struct TimerHandle: Hashable, Sendable {
    let clock: TimerClock
    let slot: UInt32
    let generation: UInt32
}

/// What a timer runs when it fires. It runs on the event thread, so it must be short:
/// submit work to a queue, or reschedule the timer through the handle it is given.
typealias TimerCallback = @Sendable (TimerHandle) -> Void
