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

/// Watches memory pressure for memory-pressure sources through PSI triggers on
/// `/proc/pressure/memory` (see `DispatchSourceMemoryPressure` for the levels). Two
/// trigger fds, opened with the first source and closed with the last; each wakes the
/// event thread with `EPOLLPRI` at most once per window while its threshold is
/// exceeded. After a warning or critical, a timer reports `normal` once a window and a
/// second passed without another trigger.
///
/// If the triggers cannot be set up (no PSI, `psi=0`, a sandbox without /proc), sources
/// still work but never fire: `isSupported` then says false.
final class MemoryPressureCenter: @unchecked Sendable {
    static let shared = MemoryPressureCenter()

    /// The PSI triggers: "some/full <stall µs> <window µs>". 2 s is the shortest window an
    /// unprivileged process may use (and a multiple of it is required without
    /// CAP_SYS_RESOURCE).
    static let warningTrigger = "some 200000 2000000"
    static let criticalTrigger = "full 200000 2000000"
    /// Quiet time after the last trigger before `normal` is reported (ns).
    static let recoveryDelay: UInt64 = 3_000_000_000

    private struct Member {
        let mask: DispatchSource.MemoryPressureEvent
        weak var source: DispatchSource?
    }

    private let lock = FutexLock()
    // Guarded by `lock`.
    private var members: [UInt64: Member] = [:]
    private var nextToken: UInt64 = 1
    private var triggers: [(fd: Int32, registration: RegistrationID)] = []
    private var lastPressure: UInt64 = 0
    private var recoveryTimer: TimerHandle?

    /// Whether this system's PSI accepts triggers (probed once: opens and closes them).
    static let isSupported: Bool = {
        guard let warning = openTrigger(warningTrigger) else { return false }
        close(warning)
        return true
    }()

    /// Starts reporting to `source`; returns a token for `remove`.
    func add(mask: DispatchSource.MemoryPressureEvent, source: DispatchSource) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        if members.isEmpty { openTriggersLocked() }
        let token = nextToken
        nextToken += 1
        members[token] = Member(mask: mask, source: source)
        return token
    }

    /// Stops reporting for `token`; the last one closes the triggers.
    func remove(_ token: UInt64) {
        lock.lock()
        members[token] = nil
        var retired: [(fd: Int32, registration: RegistrationID)] = []
        var timer: TimerHandle?
        if members.isEmpty {
            retired = triggers
            triggers = []
            timer = recoveryTimer
            recoveryTimer = nil
        }
        lock.unlock()
        if let timer { EventLoop.shared.cancelTimer(timer) }
        for trigger in retired {
            EventLoop.shared.unregister(trigger.registration)
            close(trigger.fd)
        }
    }

    /// Delivers `level` as if a trigger fired (for tests; also the triggers' own path).
    func report(_ level: DispatchSource.MemoryPressureEvent) {
        lock.lock()
        if level != .normal {
            lastPressure = Clock.monotonicNanoseconds()
            if recoveryTimer == nil {
                recoveryTimer = EventLoop.shared.addTimer(
                    clock: .monotonic, deadline: lastPressure + Self.recoveryDelay, leeway: 500_000_000
                ) { [self] handle in recoveryCheck(handle) }
            }
        }
        let deliveries = membersLocked(for: level)
        lock.unlock()
        for (source, events) in deliveries { source.merge(events) }
    }

    /// On the event thread: report `normal` if no trigger fired for the recovery delay.
    private func recoveryCheck(_ handle: TimerHandle) {
        lock.lock()
        guard recoveryTimer == handle else { return lock.unlock() }
        let quietUntil = lastPressure + Self.recoveryDelay
        if Clock.monotonicNanoseconds() < quietUntil {
            EventLoop.shared.rescheduleTimer(handle, deadline: quietUntil, leeway: 500_000_000)
            return lock.unlock()
        }
        recoveryTimer = nil
        let deliveries = membersLocked(for: .normal)
        lock.unlock()
        for (source, events) in deliveries { source.merge(events) }
    }

    private func membersLocked(for level: DispatchSource.MemoryPressureEvent) -> [(DispatchSource, UInt)] {
        members.values.compactMap { member in
            guard member.mask.contains(level), let source = member.source else { return nil }
            return (source, level.rawValue)
        }
    }

    private func openTriggersLocked() {
        for (trigger, level) in [(Self.warningTrigger, DispatchSource.MemoryPressureEvent.warning),
                                 (Self.criticalTrigger, .critical)] {
            guard let fd = Self.openTrigger(trigger) else { continue }
            let registration = try? EventLoop.shared.register(fd: fd, events: [.priority]) { [self] events in
                if events.contains(.priority) { report(level) }
            }
            if let registration { triggers.append((fd, registration)) } else { close(fd) }
        }
    }

    /// Opens `/proc/pressure/memory` and writes a trigger to it; nil if refused.
    private static func openTrigger(_ trigger: String) -> Int32? {
        let fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let written = trigger.withCString { write(fd, $0, strlen($0) + 1) }
        guard written > 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

/// A memory-pressure source's share of the `MemoryPressureCenter`.
final class MemoryPressureMonitor: SourceMonitor, @unchecked Sendable {
    let mask: DispatchSource.MemoryPressureEvent
    /// Touched only by `install`/`uninstall`, which the source serializes.
    var token: UInt64?

    init(mask: DispatchSource.MemoryPressureEvent) {
        self.mask = mask
    }

    func install(for source: DispatchSource) {
        token = MemoryPressureCenter.shared.add(mask: mask, source: source)
    }

    func uninstall(for source: DispatchSource) {
        if let token { MemoryPressureCenter.shared.remove(token) }
        token = nil
    }
}
