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

/// Due timers served by a searching worker (see `EventLoop+PoolFiring.swift`): the one
/// step `search` takes each round beside stealing and the injection queues.
extension WorkerPool {
    /// Fires due timers here, or starts or ends watching the next one
    /// (`EventLoop+PoolFiring.swift`). Returns the first job a fired callback submitted,
    /// which went to this worker's own slots. `watchUntil` is nonzero while this worker
    /// watches: the instant it gives up if it still cannot fire. `tried` turns true when a
    /// look under the lock found nothing this worker may fire (say, a due timer that must
    /// run on the event thread): the rest of this search leaves timers alone instead of
    /// taking the lock every round until the event thread has run. `roundStart` is when
    /// the search round began (a later clock read here that is far past it means this
    /// thread was descheduled meanwhile); `mayWatch` is false where spinning is advised
    /// against, and then due timers are still fired but none is watched.
    @inline(__always)
    func serveTimers(for worker: Worker, roundStart: UInt64, mayWatch: Bool,
                     watchUntil: inout UInt64, tried: inout Bool) -> Job? {
        let due = EventLoop.monotonicDueHint.load(ordering: .relaxed)
        if due == .max && watchUntil == 0 { return nil }
        let now = Clock.monotonicNanoseconds()
        // Descheduled since the round began (`search` looks between rounds only): the
        // overdue timers fire now, but this thread spins no more for a while.
        _ = Self.noteIfDescheduled(since: roundStart, now: now)
        if now >= due {
            switch EventLoop.shared.fireDueTimersFromPool() {
            case .busy: break
            case .nothingDue:
                watchUntil = 0
                tried = true
            case .fired:
                watchUntil = 0
                if let raw = worker.lifoSlot.exchange(nil, ordering: .acquiringAndReleasing) { return Job.takeRetained(raw) }
                return worker.local.pop() ?? popInjection(for: worker)
            }
        } else if mayWatch, watchUntil == 0, due - now <= EventLoop.watchWindowNanoseconds,
                  worker.currentNice <= 0,   // a polite thread may wait long for its CPU
                  EventLoop.shared.beginTimerWatch(now: now, backstop: cnv_spin_recently_descheduled()) {
            watchUntil = due + EventLoop.watchWindowNanoseconds
        }
        if watchUntil != 0 && now > watchUntil {
            EventLoop.shared.endTimerWatch()
            watchUntil = 0
        }
        return nil
    }
}
