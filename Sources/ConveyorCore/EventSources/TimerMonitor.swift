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

/// The start of a timer schedule, on one of the two clocks.
enum TimerStart {
    /// `DispatchTime`: the monotonic clock.
    case uptime(DispatchTime)
    /// `DispatchWallTime`: the real-time clock (follows changes to the date).
    case wall(DispatchWallTime)
}

/// Conversions from the public schedule arguments.
enum TimerSchedule {
    /// The largest leeway used (1 minute): `.never` or a negative leeway ("any delay")
    /// must not keep a one-shot timer from ever firing.
    static let maximumLeeway: UInt64 = 60_000_000_000

    /// A repeat interval given in seconds: infinite, NaN or negative means "does not
    /// repeat", as the Dispatch overlay's ~0 does.
    static func interval(seconds: Double) -> DispatchTimeInterval {
        guard seconds.isFinite, seconds >= 0 else { return .never }
        let nanoseconds = seconds * 1_000_000_000
        return nanoseconds >= Double(Int.max) ? .nanoseconds(Int.max) : .nanoseconds(Int(nanoseconds))
    }

    /// The interval in nanoseconds, 0 for a one-shot timer. Negative intervals do not
    /// repeat; a zero interval becomes 1 ns (libdispatch keeps 0 for "disabled").
    static func nanoseconds(of interval: DispatchTimeInterval) -> UInt64 {
        if case .never = interval { return 0 }
        let value = interval.saturatingNanoseconds
        if value < 0 { return 0 }
        return value == 0 ? 1 : UInt64(value)
    }
}

extension DispatchSource {
    /// `schedule(…)` of the timer protocol: checks the source is a timer.
    func scheduleTimer(_ start: TimerStart, repeating: DispatchTimeInterval, leeway: DispatchTimeInterval) {
        guard kind == .timer, let timer = monitor as? TimerMonitor else {
            fatalError("Conveyor: schedule(…) on a \(kind.rawValue) dispatch source; only timer sources can be scheduled")
        }
        let clock: TimerClock
        let deadline: UInt64
        switch start {
        case .uptime(let time):
            clock = .monotonic
            deadline = time.monotonicDeadline
        case .wall(let time):
            clock = .wall
            deadline = time.realtimeDeadline
        }
        let interval = TimerSchedule.nanoseconds(of: repeating)
        var window = TimerSchedule.maximumLeeway
        if case .never = leeway {} else if leeway.saturatingNanoseconds >= 0 {
            window = min(window, UInt64(leeway.saturatingNanoseconds))
        }
        if interval > 0 { window = min(window, interval / 2) }
        if timer.isStrict { window = 0 }
        setupLock.lock()
        timer.schedule(for: self, clock: clock, deadline: deadline, interval: interval, leeway: window)
        setupLock.unlock()
    }
}

/// A timer source's schedule and its timer on the event loop.
///
/// Each fire merges the number of deadlines that passed (1, or more when the event
/// thread was late) and moves the next deadline forward by whole intervals. While the
/// source is suspended the timer is parked after its next fire instead of re-armed; on
/// resumption the intervals that passed meanwhile are added and it is armed again, so
/// a suspended timer costs no wake-ups but its `data` still counts every interval.
///
/// Fields are guarded by the source's lock. A new schedule bumps `generation`, so a fire
/// of the old timer that races with it is ignored.
final class TimerMonitor: SourceMonitor, @unchecked Sendable {
    let isStrict: Bool
    var clock: TimerClock = .monotonic
    /// The next deadline (ns on `clock`); `.max`: not scheduled, or never.
    var nextDeadline: UInt64 = .max
    /// Repeat interval in ns; 0 for a one-shot timer.
    var interval: UInt64 = 0
    var leeway: UInt64 = 0
    var generation: UInt64 = 0
    var handle: TimerHandle?
    var isInstalled = false
    /// Fired while the source was suspended and not re-armed.
    var isParked = false

    init(isStrict: Bool) {
        self.isStrict = isStrict
    }

    func install(for source: DispatchSource) {
        source.lock.lock()
        isInstalled = true
        armLocked(source)
        source.lock.unlock()
    }

    func uninstall(for source: DispatchSource) {
        source.lock.lock()
        isInstalled = false
        isParked = false
        generation &+= 1
        let old = handle
        handle = nil
        source.lock.unlock()
        if let old { EventLoop.shared.cancelTimer(old) }
    }

    /// A new schedule: clears pending fires and replaces the armed timer. Called with the
    /// source's setup lock held.
    func schedule(for source: DispatchSource, clock: TimerClock, deadline: UInt64, interval: UInt64, leeway: UInt64) {
        source.lock.lock()
        guard !source.state.isCancelRequested else {
            source.lock.unlock()
            return
        }
        generation &+= 1
        let old = handle
        handle = nil
        isParked = false
        self.clock = clock
        self.nextDeadline = deadline
        self.interval = interval
        self.leeway = leeway
        source.clearPendingLocked()
        if isInstalled { armLocked(source) }
        source.lock.unlock()
        if let old { EventLoop.shared.cancelTimer(old) }
    }

    func sourceDidResumeLocked(_ source: DispatchSource) {
        guard isParked, isInstalled else { return }
        isParked = false
        let now = clock.now()
        if now >= nextDeadline {
            let count = 1 + (now - nextDeadline) / interval
            nextDeadline = Self.advance(nextDeadline, by: count, intervals: interval)
            source.accumulateLocked(UInt(truncatingIfNeeded: count))
        }
        armLocked(source)
    }

    /// Puts the timer on the event loop for `nextDeadline`. Source lock held.
    private func armLocked(_ source: DispatchSource) {
        guard nextDeadline != .max else { return }
        let generation = self.generation
        handle = EventLoop.shared.addTimer(clock: clock, deadline: nextDeadline, leeway: leeway,
                                           poolMayFire: true) { [weak source, self] handle in
            guard let source else { return }
            self.fire(source, handle: handle, generation: generation)
        }
    }

    /// On the event thread, or a pool worker that fired the timer: count the deadlines that
    /// passed, merge them, re-arm or park.
    private func fire(_ source: DispatchSource, handle: TimerHandle, generation: UInt64) {
        source.lock.lock()
        guard generation == self.generation, isInstalled, !source.state.isCancelRequested else {
            source.lock.unlock()
            return
        }
        var count: UInt64 = 1
        if interval > 0 {
            let now = clock.now()
            if now > nextDeadline { count += (now - nextDeadline) / interval }
            nextDeadline = Self.advance(nextDeadline, by: count, intervals: interval)
        } else {
            nextDeadline = .max
        }
        source.accumulateLocked(UInt(truncatingIfNeeded: count))
        if interval == 0 || nextDeadline == .max {
            self.handle = nil   // spent when this callback returns
        } else if source.state.suspendCount > 0 {
            isParked = true
            self.handle = nil
        } else {
            EventLoop.shared.rescheduleTimer(handle, deadline: nextDeadline, leeway: leeway)
        }
        source.scheduleDeliveryLocked()
        source.lock.unlock()
    }

    /// `deadline + count * interval`, saturating at `.max` (never).
    static func advance(_ deadline: UInt64, by count: UInt64, intervals interval: UInt64) -> UInt64 {
        let (span, overflow) = count.multipliedReportingOverflow(by: interval)
        if overflow { return .max }
        let (sum, carry) = deadline.addingReportingOverflow(span)
        return carry ? .max : sum
    }
}
