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


/// What one source's handlers saw (the `signals` and `processExit` ops), checked against
/// the order every source keeps: its registration handler once, before any event handler;
/// no event handler while it is suspended or after its cancel handler; the cancel handler
/// once.
final class SourceRecord: @unchecked Sendable {
    private struct State {
        var events = 0
        var registered = false
        var cancelled = false
        var suspended = false
        /// Why no event may reach the source at all, if none may.
        var noEventBecause: String?
    }
    private let state = Locked(State())

    /// The events handled so far.
    var events: Int { state.withLock { $0.events } }

    /// Whether the registration handler ran.
    var isRegistered: Bool { state.withLock { $0.registered } }

    /// Marks the source suspended (set before its `suspend()`, cleared before `resume()`).
    func setSuspended(_ suspended: Bool) { state.withLock { $0.suspended = suspended } }

    /// No event may reach the source from now on, for `reason`.
    func forbidEvents(because reason: String) { state.withLock { $0.noEventBecause = reason } }

    func registered(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.registered { checker.fail("\(what): the registration handler ran twice") }
            if state.events > 0 { checker.fail("\(what): the registration handler ran after an event handler") }
            if state.cancelled { checker.fail("\(what): the registration handler ran after the cancel handler") }
            state.registered = true
        }
    }

    /// An event handler ran; `problem` is what the caller found wrong with its data, if
    /// anything, and with `once` a second event is a fault too.
    func event(_ checker: Checker, what: String, problem: String? = nil, once: Bool = false) {
        state.withLock { state in
            if state.cancelled { checker.fail("\(what): an event handler ran after the cancel handler") }
            if state.suspended { checker.fail("\(what): an event handler ran while the source was suspended") }
            if let reason = state.noEventBecause { checker.fail("\(what): an event handler ran though \(reason)") }
            if let problem { checker.fail("\(what): \(problem)") }
            if !state.registered { checker.fail("\(what): an event handler ran before the registration handler") }
            if once && state.events > 0 { checker.fail("\(what): a second event") }
            state.events += 1
        }
    }

    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelled { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelled = true
        }
    }
}

extension Runner {
    /// Waits until `reached` holds, within the liveness bound, waking at each signal of
    /// `progress` (the sources' handlers signal it); fails saying `why`, with what each
    /// of `records` saw, if not.
    func awaitSources(_ records: [SourceRecord], what: String, progress: SemaphoreHandle, _ why: String,
                      until reached: () -> Bool) -> Bool {
        let deadline = monotonicNanoseconds() + Int(liveness * 1e9)
        while !reached() {
            let left = deadline - monotonicNanoseconds()
            if left <= 0 {
                checker.fail("\(what): \(why) within \(liveness) s (events: "
                             + records.map { "\($0.events)\($0.isRegistered ? "" : " unregistered")" }.joined(separator: ", ") + ")")
                return false
            }
            _ = progress.wait(max(1, left / 1_000))
        }
        return true
    }
}
