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

/// One clock's timers and the timerfd that rings for them. Guarded by the event loop's
/// lock; only the loop touches it.
///
/// The timerfd is kept armed at the heap's `nextFireTime` (the latest deadline that still
/// lies in every window it fires; a lone timer's own deadline).
/// Any thread that makes that time earlier re-arms the timerfd itself, under the lock
/// (one `timerfd_settime`, no need to wake the event thread); making it later is left
/// lazy: the old instant rings, the event thread finds nothing due and re-arms.
///
/// The shared loop's monotonic queue can instead be *watched*: a pool worker that is
/// spinning for work anyway, with the next fire time a few microseconds away, fires the
/// due timers itself (`EventLoop+PoolFiring.swift`), and the timerfd is disarmed, or,
/// when the watcher asks for a backstop, moved a little after that time, where it rings
/// only if the watcher has not fired by then. The backstop is what a watcher that loses
/// its CPU costs: on a busy machine the kernel took a watcher's CPU for a whole time
/// slice, and with the timerfd disarmed every timer due meanwhile waited that long
/// (traced: 80 timers, 4.1 ms). A quiet machine does without: arming the timerfd for the
/// backstop, rather than disarming it, made every watched timer 6 µs later there
/// (timer-lateness p50 7.2 -> 13 µs), and its watchers keep their CPUs.
///
/// Invariant: every scheduled timer is covered, by the armed timerfd (while watched with
/// a backstop, at most a backstop late) or by a watch. A watch ends through `endWatch` or
/// `rearmAfterExpiry`, both of which arm the timerfd for whatever is left, and the
/// watcher ends it before it stops spinning. Nobody owns a watch: whoever fires the due
/// timers (the event thread, any worker) ends it, and a watcher's late `endWatch` may end
/// a newer watch; that only costs a timerfd ring. A watched timer without a backstop is
/// late, never lost, if its watcher loses its CPU.
final class TimerQueue {
    let clock: TimerClock
    /// A non-blocking timerfd on `clock`, in the loop's epoll set.
    let fd: Int32
    var heap = TimerHeap()
    /// The instant the timerfd is armed for; nil when it will not ring (disarmed, or it
    /// already rang and the event thread has not re-armed it yet).
    private(set) var armedAt: UInt64?
    /// A pool worker watches the next fire time; the timerfd is disarmed, or armed at the
    /// backstop (`watchBackstop` after that time), meanwhile.
    private(set) var isWatched = false
    /// How long after the watched fire time the timerfd rings anyway; nil: it does not
    /// (set by `beginWatch`).
    private var watchBackstop: UInt64?
    /// Whether the next fire time is mirrored into `EventLoop.monotonicDueHint`.
    let publishesDueHint: Bool

    init(clock: TimerClock, fd: Int32, publishesDueHint: Bool = false) {
        self.clock = clock
        self.fd = fd
        self.publishesDueHint = publishesDueHint
    }

    /// Re-arms the timerfd if the heap's next fire time is earlier than the armed one.
    /// While watched, the hint moves (the watcher spins on it), and so does a backstop.
    func armIfEarlier() {
        guard let next = heap.nextFireTime else { return }
        if isWatched {
            if let backstop = watchBackstop, let armed = armedAt, next &+ backstop < armed {
                program(next &+ backstop)
            } else {
                publishHint()
            }
            return
        }
        if let armed = armedAt, armed <= next { return }
        program(next)
    }

    /// Called after the timerfd rang, or a watch fired, and expired timers were taken:
    /// ends any watch and arms the timerfd for the next fire time.
    func rearmAfterExpiry() {
        let backstopMayRing = endsWatchWithBackstop()
        armedAt = nil
        rearm(disarmingBackstop: backstopMayRing)
    }

    /// Marks the timerfd as spent without re-arming (a batch is still being drained).
    func markExpired() {
        armedAt = nil
        publishHint()
    }

    /// Starts a watch if the next fire time is in `(now, now + window]` and nobody
    /// watches yet: moves the timerfd to `backstop` after that time, or disarms it (nil).
    /// Returns whether the caller now watches.
    func beginWatch(now: UInt64, window: UInt64, backstop: UInt64?) -> Bool {
        guard !isWatched, let next = heap.nextFireTime,
              next > now, next - now <= window else { return false }
        isWatched = true
        watchBackstop = backstop
        if let backstop {
            program(next &+ backstop)
        } else {
            if armedAt != nil { disarm() }
            publishHint()
        }
        return true
    }

    /// Ends a watch without firing: the timerfd takes over again.
    func endWatch() {
        guard isWatched else { return }
        rearm(disarmingBackstop: endsWatchWithBackstop())
    }

    /// Ends any watch; returns whether it had armed a backstop, which may still ring.
    private func endsWatchWithBackstop() -> Bool {
        defer { isWatched = false }
        return isWatched && watchBackstop != nil
    }

    /// Arms the timerfd for the next fire time. With nothing left, a backstop that may
    /// still ring is disarmed: after a watcher fired the last timer, it would wake the
    /// event thread for nothing (a review's test saw that wake-up).
    private func rearm(disarmingBackstop: Bool) {
        if let next = heap.nextFireTime { return program(next) }
        if disarmingBackstop { disarm() }
        publishHint()
    }

    /// Disarms the timerfd (a `timerfd_settime` of 0).
    private func disarm() {
        armedAt = nil
        SystemCall.check(cnv_timerfd_arm_absolute(fd, 0), "timerfd_settime")
    }

    private func program(_ instant: UInt64) {
        armedAt = instant
        // 0 would disarm, so a deadline of 0 ("already due") becomes 1. Beyond Int64.max
        // nanoseconds (year 2262) nothing can be due: leave it disarmed.
        let value: UInt64 = instant > UInt64(Int64.max) ? 0 : max(instant, 1)
        SystemCall.check(cnv_timerfd_arm_absolute(fd, value), "timerfd_settime")
        publishHint()
    }

    /// Mirrors the next instant someone will fire at into `EventLoop.monotonicDueHint`.
    /// A hint only: searching workers read it without the lock and confirm under it, so a
    /// stale value costs one look, or leaves a timer to the timerfd; it never fires one
    /// early.
    private func publishHint() {
        guard publishesDueHint else { return }
        let hint = isWatched ? (heap.nextFireTime ?? .max) : (armedAt ?? .max)
        EventLoop.monotonicDueHint.store(hint, ordering: .relaxed)
    }
}
