import CConveyor

/// One clock's timers and the timerfd that rings for them. Guarded by the event loop's
/// lock; only the loop touches it.
///
/// The timerfd is kept armed at the heap's `nextFireTime` (the earliest window end).
/// Any thread that makes that time earlier re-arms the timerfd itself, under the lock
/// (one `timerfd_settime`, no need to wake the event thread); making it later is left
/// lazy: the old instant rings, the event thread finds nothing due and re-arms.
final class TimerQueue {
    let clock: TimerClock
    /// A non-blocking timerfd on `clock`, in the loop's epoll set.
    let fd: Int32
    var heap = TimerHeap()
    /// The instant the timerfd is armed for; nil when it will not ring (disarmed, or it
    /// already rang and the event thread has not re-armed it yet).
    private(set) var armedAt: UInt64?

    init(clock: TimerClock, fd: Int32) {
        self.clock = clock
        self.fd = fd
    }

    /// Re-arms the timerfd if the heap's next fire time is earlier than the armed one.
    func armIfEarlier() {
        guard let next = heap.nextFireTime else { return }
        if let armed = armedAt, armed <= next { return }
        program(next)
    }

    /// Called by the event thread after the timerfd rang and expired timers were taken:
    /// arms it for the next fire time, whatever it was armed for before.
    func rearmAfterExpiry() {
        armedAt = nil
        if let next = heap.nextFireTime { program(next) }
    }

    /// Marks the timerfd as spent without re-arming (a batch is still being drained).
    func markExpired() { armedAt = nil }

    private func program(_ instant: UInt64) {
        armedAt = instant
        // 0 would disarm, so a deadline of 0 ("already due") becomes 1. Beyond Int64.max
        // nanoseconds (year 2262) nothing can be due: leave it disarmed.
        let value: UInt64 = instant > UInt64(Int64.max) ? 0 : max(instant, 1)
        SystemCall.check(cnv_timerfd_arm_absolute(fd, value), "timerfd_settime")
    }
}
