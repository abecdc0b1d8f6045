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

/// A source that fires at a deadline and, optionally, at a fixed interval after it. Its
/// `data` is the number of fires since the handler last ran (more than 1 when it was
/// suspended or late). Until `schedule` is called it never fires.
///
/// Leeway is the delay the program accepts after each deadline; Conveyor's event thread
/// never fires early and uses the leeway only to fire timers whose windows overlap in one
/// wake-up: a timer with no other deadline inside its window fires at its deadline, not
/// at the end of its leeway. For a repeating timer the leeway is at most half the
/// interval, and never more than a minute (`.never` or a negative leeway mean "any
/// delay"); a timer made with `.strict` uses no leeway at all.
public protocol DispatchSourceTimer: DispatchSourceProtocol {
    /// Sets a one-shot timer at `deadline` (uptime clock), clearing pending fires.
    func scheduleOneshot(deadline: DispatchTime, leeway: DispatchTimeInterval)

    /// Sets a one-shot timer at `wallDeadline` (wall clock), clearing pending fires.
    func scheduleOneshot(wallDeadline: DispatchWallTime, leeway: DispatchTimeInterval)

    /// Sets a timer at `deadline` repeating every `interval`, clearing pending fires.
    func scheduleRepeating(deadline: DispatchTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval)

    /// Sets a timer at `deadline` repeating every `interval` seconds, clearing pending fires.
    func scheduleRepeating(deadline: DispatchTime, interval: Double, leeway: DispatchTimeInterval)

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval`.
    func scheduleRepeating(wallDeadline: DispatchWallTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval)

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval` seconds.
    func scheduleRepeating(wallDeadline: DispatchWallTime, interval: Double, leeway: DispatchTimeInterval)
}

extension DispatchSourceTimer {
    /// Sets a one-shot timer at `deadline`, clearing pending fires.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleOneshot(deadline: DispatchTime, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.uptime(deadline), repeating: .never, leeway: leeway)
    }

    /// Sets a one-shot wall-clock timer at `wallDeadline`, clearing pending fires.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleOneshot(wallDeadline: DispatchWallTime, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.wall(wallDeadline), repeating: .never, leeway: leeway)
    }

    /// Sets a timer at `deadline` repeating every `interval`.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleRepeating(deadline: DispatchTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.uptime(deadline), repeating: interval, leeway: leeway)
    }

    /// Sets a timer at `deadline` repeating every `interval` seconds.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleRepeating(deadline: DispatchTime, interval: Double, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.uptime(deadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval`.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleRepeating(wallDeadline: DispatchWallTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.wall(wallDeadline), repeating: interval, leeway: leeway)
    }

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval` seconds.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleRepeating(wallDeadline: DispatchWallTime, interval: Double, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.wall(wallDeadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }

    /// Sets the timer's first deadline (uptime clock), its repeat interval (`.never` for a
    /// one-shot timer) and its leeway. Pending fires of the previous schedule are cleared;
    /// no effect once the timer is cancelled. May be called at any time, also from the
    /// timer's own handler.
    @available(swift 4)
    public func schedule(deadline: DispatchTime, repeating interval: DispatchTimeInterval = .never, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.uptime(deadline), repeating: interval, leeway: leeway)
    }

    /// Sets the timer's first deadline (uptime clock), its repeat interval in seconds
    /// (infinity for a one-shot timer) and its leeway.
    @available(swift 4)
    public func schedule(deadline: DispatchTime, repeating interval: Double, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.uptime(deadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }

    /// Sets the timer's first deadline on the wall clock (it follows changes to the date),
    /// its repeat interval (`.never` for a one-shot timer) and its leeway.
    @available(swift 4)
    public func schedule(wallDeadline: DispatchWallTime, repeating interval: DispatchTimeInterval = .never, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.wall(wallDeadline), repeating: interval, leeway: leeway)
    }

    /// Sets the timer's first deadline on the wall clock, its repeat interval in seconds
    /// (infinity for a one-shot timer) and its leeway.
    @available(swift 4)
    public func schedule(wallDeadline: DispatchWallTime, repeating interval: Double, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        concreteSource.scheduleTimer(.wall(wallDeadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }
}

// The requirements' witnesses for `DispatchSource` itself: the protocol extension's
// implementations above are deprecated (they carry the default leeway), and a deprecated
// default implementation may not satisfy a requirement without a warning.
extension DispatchSource {
    /// Sets a one-shot timer at `deadline`, clearing pending fires.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleOneshot(deadline: DispatchTime, leeway: DispatchTimeInterval) {
        scheduleTimer(.uptime(deadline), repeating: .never, leeway: leeway)
    }

    /// Sets a one-shot wall-clock timer at `wallDeadline`, clearing pending fires.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleOneshot(wallDeadline: DispatchWallTime, leeway: DispatchTimeInterval) {
        scheduleTimer(.wall(wallDeadline), repeating: .never, leeway: leeway)
    }

    /// Sets a timer at `deadline` repeating every `interval`.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleRepeating(deadline: DispatchTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval) {
        scheduleTimer(.uptime(deadline), repeating: interval, leeway: leeway)
    }

    /// Sets a timer at `deadline` repeating every `interval` seconds.
    @available(swift, deprecated: 4, renamed: "schedule(deadline:repeating:leeway:)")
    public func scheduleRepeating(deadline: DispatchTime, interval: Double, leeway: DispatchTimeInterval) {
        scheduleTimer(.uptime(deadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval`.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleRepeating(wallDeadline: DispatchWallTime, interval: DispatchTimeInterval, leeway: DispatchTimeInterval) {
        scheduleTimer(.wall(wallDeadline), repeating: interval, leeway: leeway)
    }

    /// Sets a wall-clock timer at `wallDeadline` repeating every `interval` seconds.
    @available(swift, deprecated: 4, renamed: "schedule(wallDeadline:repeating:leeway:)")
    public func scheduleRepeating(wallDeadline: DispatchWallTime, interval: Double, leeway: DispatchTimeInterval) {
        scheduleTimer(.wall(wallDeadline), repeating: TimerSchedule.interval(seconds: interval), leeway: leeway)
    }
}
