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
import Synchronization
import Testing
@testable import ConveyorCore
#if canImport(Glibc)
import Glibc
#endif

/// A count-down latch on a futex word: `wait` returns true once `countDown` was called
/// `count` times, false if the timeout passed first.
fileprivate final class Countdown: @unchecked Sendable {
    private let word: FutexWord
    init(_ count: UInt32) { word = FutexWord(count) }
    deinit { word.deallocate() }

    func countDown() {
        if word.fetchAdd(UInt32.max) == 1 { word.wakeAll() }  // adding 2³²−1 subtracts 1
    }

    var remaining: UInt32 { word.load() }

    func wait(seconds: Double = 20) -> Bool {
        let deadline = Clock.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            let value = word.load()
            if value == 0 { return true }
            let now = Clock.monotonicNanoseconds()
            if now >= deadline { return false }
            word.wait(expected: value, timeoutNanoseconds: Int64(deadline - now))
        }
    }
}

/// Values collected from callbacks, under a `FutexLock`.
fileprivate final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = FutexLock()
    private var storage: [Value] = []
    func append(_ value: Value) { lock.withLock { storage.append(value) } }
    var values: [Value] { lock.withLock { storage } }
}

/// Spins (yielding the CPU) until `condition` holds or `seconds` pass.
fileprivate func eventually(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Clock.monotonicNanoseconds() + UInt64(seconds * 1e9)
    while !condition() {
        if Clock.monotonicNanoseconds() >= deadline { return false }
        sched_yield()
    }
    return true
}

fileprivate let millisecond: UInt64 = 1_000_000

/// The calling thread's name, from /proc.
fileprivate func threadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = read(fd, &buffer, 31)
    guard count > 0 else { return "" }
    return String(decoding: buffer[0..<count], as: UTF8.self).trimmingSuffixNewline()
}

extension String {
    fileprivate func trimmingSuffixNewline() -> String { hasSuffix("\n") ? String(dropLast()) : self }
}

/// Private loops keep tests that count wake-ups apart from the shared loop other tests use.
@Suite struct EventLoopTimerTests {
    @Test func sharedLoopRunsOnANamedThread() throws {
        let fired = Countdown(1)
        EventLoop.shared.addTimer(clock: .monotonic, deadline: 0, leeway: 0) { _ in
            if threadName() == "conveyor.events" { fired.countDown() }
        }
        #expect(fired.wait())
    }

    @Test func timersNeverFireEarly() {
        let loop = EventLoop(name: "test.early")
        defer { loop.shutdown() }
        let count = 600
        let done = Countdown(UInt32(count))
        let early = Atomic<Int>(0)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count {
            let clock: TimerClock = index % 3 == 0 ? .wall : .monotonic
            let deadline = clock.now() + UInt64.random(in: 0...30 * millisecond, using: &generator)
            let leeway = index % 2 == 0 ? 0 : UInt64.random(in: 0...10 * millisecond, using: &generator)
            loop.addTimer(clock: clock, deadline: deadline, leeway: leeway) { _ in
                if clock.now() < deadline { early.wrappingAdd(1, ordering: .relaxed) }
                done.countDown()
            }
        }
        #expect(done.wait())
        #expect(early.load(ordering: .relaxed) == 0)
    }

    /// A timer whose group lost its other member rings at its own deadline again, not at
    /// the instant the group would have rung (issue 25, finding 9: leeway is a window for
    /// coalescing, not a delay).
    @Test func aTimerLeftAloneByACancelRingsNearItsDeadline() {
        let loop = EventLoop(name: "test.left-alone")
        defer { loop.shutdown() }
        let fired = Countdown(1)
        let firedAt = Atomic<UInt64>(0)
        let deadline = Clock.monotonicNanoseconds() + 50 * millisecond
        // The partner first (the timerfd is set for it), then a timer whose window holds
        // the partner's deadline: together they would ring at +10 s.
        let partner = loop.addTimer(clock: .monotonic, deadline: deadline + 10_000 * millisecond, leeway: 0) { _ in }
        loop.addTimer(clock: .monotonic, deadline: deadline, leeway: 20_000 * millisecond) { _ in
            firedAt.store(Clock.monotonicNanoseconds(), ordering: .relaxed)
            fired.countDown()
        }
        loop.cancelTimer(partner)
        #expect(fired.wait())
        let late = firedAt.load(ordering: .relaxed) &- deadline
        #expect(firedAt.load(ordering: .relaxed) >= deadline)
        #expect(late < 5_000 * millisecond, "rang \(late / millisecond) ms after its deadline")
    }

    @Test func overlappingWindowsFireInFewWakeUps() {
        let loop = EventLoop(name: "test.coalesce")
        defer { loop.shutdown() }
        let count = 100
        let done = Countdown(UInt32(count))
        let wakeUps = Recorder<UInt64>()
        let early = Atomic<Int>(0)
        // A second's lead: every timer must be added before the first is due (a stall
        // past `start` while adding would let each later one ring on its own).
        let start = Clock.monotonicNanoseconds() + 1_000 * millisecond
        for index in 0..<count {
            // Deadlines spread over 1 ms, each with 200 ms of leeway: all windows overlap.
            let deadline = start + UInt64(index) * 10_000
            loop.addTimer(clock: .monotonic, deadline: deadline, leeway: 200 * millisecond) { _ in
                if Clock.monotonicNanoseconds() < deadline { early.wrappingAdd(1, ordering: .relaxed) }
                wakeUps.append(loop.timerWakeUps.load(ordering: .relaxed))
                done.countDown()
            }
        }
        #expect(done.wait())
        let distinct = Set(wakeUps.values).count
        print("coalescing: \(count) timers fired in \(distinct) wake-up(s)")
        #expect(distinct <= 3)
        #expect(early.load(ordering: .relaxed) == 0)
    }

    @Test func cancelPreventsFiring() {
        let loop = EventLoop(name: "test.cancel")
        defer { loop.shutdown() }
        let fired = Atomic<Int>(0)
        let cancelledFired = Atomic<Int>(0)
        // A second's lead: every cancel must come before the first deadline.
        let base = Clock.monotonicNanoseconds() + 1_000 * millisecond
        var handles: [TimerHandle] = []
        for index in 0..<200 {
            handles.append(loop.addTimer(clock: .monotonic, deadline: base + UInt64(index) * 1000, leeway: 0) { _ in
                if index % 2 == 0 { cancelledFired.wrappingAdd(1, ordering: .relaxed) }
                fired.wrappingAdd(1, ordering: .relaxed)
            })
        }
        for index in stride(from: 0, to: 200, by: 2) {
            #expect(loop.cancelTimer(handles[index]))
            #expect(!loop.cancelTimer(handles[index]))  // twice: harmless, prevents nothing
        }
        // A sentinel due after all of them: once it ran, every earlier timer was handled.
        let sentinel = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: base + 5 * millisecond, leeway: 0) { _ in sentinel.countDown() }
        #expect(sentinel.wait())
        #expect(fired.load(ordering: .relaxed) == 100)
        #expect(cancelledFired.load(ordering: .relaxed) == 0)
        #expect(!loop.cancelTimer(handles[1]))  // after it fired: stale, harmless
        #expect(loop.scheduledTimerCount(clock: .monotonic) == 0)
    }

    @Test func tenThousandTimersEachFireOnce() {
        let loop = EventLoop(name: "test.many")
        defer { loop.shutdown() }
        let count = 10_000
        let counters = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
        counters.initialize(repeating: 0)
        defer { counters.deallocate() }
        nonisolated(unsafe) let shared = counters  // written only on the event thread
        let done = Countdown(UInt32(count))
        var generator = SystemRandomNumberGenerator()
        let now = Clock.monotonicNanoseconds()
        for index in 0..<count {
            let deadline = now + UInt64.random(in: 0...200 * millisecond, using: &generator)
            let leeway = UInt64.random(in: 0...2 * millisecond, using: &generator)
            loop.addTimer(clock: .monotonic, deadline: deadline, leeway: leeway) { _ in
                shared[index] += 1
                done.countDown()
            }
        }
        #expect(done.wait(seconds: 60))
        let sentinel = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: 0, leeway: 0) { _ in sentinel.countDown() }
        #expect(sentinel.wait())
        #expect(counters.allSatisfy { $0 == 1 })
    }

    @Test func callbacksCanAddAndRescheduleTimers() {
        let loop = EventLoop(name: "test.rearm")
        defer { loop.shutdown() }
        let repeats = Countdown(5)
        let nested = Countdown(5)  // one per run of the repeating timer
        let far = Clock.monotonicNanoseconds() + 3_600_000 * millisecond
        loop.addTimer(clock: .monotonic, deadline: far, leeway: 0) { _ in }  // armed far away
        loop.addTimer(clock: .monotonic, deadline: 0, leeway: 0) { handle in
            // From the event thread: an earlier timer than the armed one must re-arm.
            loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + millisecond, leeway: 0) { _ in
                nested.countDown()
            }
            repeats.countDown()
            if repeats.remaining > 0 {
                #expect(loop.rescheduleTimer(handle, deadline: Clock.monotonicNanoseconds() + millisecond, leeway: 0))
            }
        }
        #expect(repeats.wait())
        #expect(nested.wait())
        #expect(eventually { loop.scheduledTimerCount(clock: .monotonic) == 1 })
    }

    @Test func rescheduleMovesAPendingTimer() {
        let loop = EventLoop(name: "test.move")
        defer { loop.shutdown() }
        let fired = Countdown(1)
        let handle = loop.addTimer(clock: .wall, deadline: Clock.realtimeNanoseconds() + 3_600_000 * millisecond, leeway: 0) { _ in
            fired.countDown()
        }
        #expect(loop.rescheduleTimer(handle, deadline: Clock.realtimeNanoseconds() + millisecond, leeway: 0))
        #expect(fired.wait())
        #expect(eventually { !loop.rescheduleTimer(handle, deadline: 0, leeway: 0) })  // spent
    }

    @Test func cancelWaitsForARunningCallback() {
        let loop = EventLoop(name: "test.cancelwait")
        defer { loop.shutdown() }
        let started = Countdown(1)
        let finished = Atomic<Bool>(false)
        let handle = loop.addTimer(clock: .monotonic, deadline: 0, leeway: 0) { _ in
            started.countDown()
            let until = Clock.monotonicNanoseconds() + 20 * millisecond
            while Clock.monotonicNanoseconds() < until { sched_yield() }
            finished.store(true, ordering: .relaxed)
        }
        #expect(started.wait())
        #expect(!loop.cancelTimer(handle))
        #expect(finished.load(ordering: .relaxed) == true)
    }

    @Test func idleLoopDoesNotWakeUp() {
        let loop = EventLoop(name: "test.idle")
        defer { loop.shutdown() }
        let fired = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: 0, leeway: 0) { _ in fired.countDown() }
        loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 3_600_000 * millisecond, leeway: 0) { _ in }
        #expect(fired.wait())
        #expect(eventually { loop.loopIterations.load(ordering: .relaxed) >= 1 })
        let before = loop.loopIterations.load(ordering: .relaxed)
        // Not a race: nothing is due, so nothing may happen however long we look.
        usleep(100_000)
        #expect(loop.loopIterations.load(ordering: .relaxed) == before)
    }

    /// Prints (does not assert) lateness for 2,000 timers 50 µs apart with leeway 0.
    @Test func latencyOfDenseTimers() {
        let loop = EventLoop(name: "test.latency")
        defer { loop.shutdown() }
        let count = 2_000
        let lateness = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
        lateness.initialize(repeating: 0)
        defer { lateness.deallocate() }
        nonisolated(unsafe) let shared = lateness
        let done = Countdown(UInt32(count))
        let start = Clock.monotonicNanoseconds() + 50 * millisecond
        for index in 0..<count {
            let deadline = start + UInt64(index) * 50_000
            loop.addTimer(clock: .monotonic, deadline: deadline, leeway: 0) { _ in
                shared[index] = Clock.monotonicNanoseconds() - deadline
                done.countDown()
            }
        }
        #expect(done.wait(seconds: 60))
        let sorted = lateness.sorted()
        func microseconds(_ ns: UInt64) -> String { String(Double(ns / 100) / 10) }
        print("lateness of \(count) timers 50 µs apart, leeway 0: p50 \(microseconds(sorted[count / 2])) µs, p99 \(microseconds(sorted[count * 99 / 100])) µs, max \(microseconds(sorted[count - 1])) µs")
    }
}

@Suite struct EventLoopDescriptorTests {
    /// A non-blocking pipe; closed by `close()`.
    struct Pipe {
        let reader: Int32, writer: Int32
        init() {
            var fds: [Int32] = [0, 0]
            precondition(cnv_pipe2(&fds, 1) == 0)
            reader = fds[0]
            writer = fds[1]
        }
        func write(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) } }
        func close() { _ = Glibc.close(reader); _ = Glibc.close(writer) }
    }

    @Test func handlerSeesDataWrittenToAPipe() throws {
        let loop = EventLoop(name: "test.pipe")
        defer { loop.shutdown() }
        let pipe = Pipe()
        defer { pipe.close() }
        let received = Recorder<UInt8>()
        let done = Countdown(3)
        let reader = pipe.reader
        let id = try loop.register(fd: reader, events: .input) { events in
            guard events.contains(.input) else { return }
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = read(reader, &buffer, 16)
            for byte in buffer.prefix(max(count, 0)) { received.append(byte); done.countDown() }
        }
        pipe.write([1, 2, 3])
        #expect(done.wait())
        #expect(received.values == [1, 2, 3])
        loop.unregister(id)
        #expect(loop.registrationCount == 0)
    }

    @Test func unregisterWaitsForTheHandlerSoCloseIsSafe() throws {
        let loop = EventLoop(name: "test.unreg")
        defer { loop.shutdown() }
        let pipe = Pipe()
        let started = Countdown(1)
        let calls = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)
        let reader = pipe.reader
        let id = try loop.register(fd: reader, events: .input) { _ in
            // Does not read: the fd stays readable, so a level-triggered handler is
            // called again and again until unregistered.
            if calls.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
                started.countDown()
                let until = Clock.monotonicNanoseconds() + 20 * millisecond
                while Clock.monotonicNanoseconds() < until { sched_yield() }
                finished.store(true, ordering: .relaxed)
            }
        }
        pipe.write([42])
        #expect(started.wait())
        loop.unregister(id)
        #expect(finished.load(ordering: .relaxed) == true)  // the handler had returned
        let callsAtUnregister = calls.load(ordering: .relaxed)
        pipe.close()  // safe: the handler can no longer touch `reader`
        // An unrelated timer later: the loop kept going and never called the handler again.
        let later = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 20 * millisecond, leeway: 0) { _ in later.countDown() }
        #expect(later.wait())
        #expect(calls.load(ordering: .relaxed) == callsAtUnregister)
    }

    @Test func unregisterFromItsOwnHandlerDoesNotDeadlock() throws {
        let loop = EventLoop(name: "test.selfunreg")
        defer { loop.shutdown() }
        let pipe = Pipe()
        defer { pipe.close() }
        let calls = Atomic<Int>(0)
        let done = Countdown(1)
        let box = Recorder<RegistrationID>()
        let registered = Countdown(1)
        let id = try loop.register(fd: pipe.reader, events: .input) { _ in
            #expect(registered.wait())
            calls.wrappingAdd(1, ordering: .relaxed)
            for id in box.values { loop.unregister(id) }
            done.countDown()
        }
        box.append(id)
        registered.countDown()
        pipe.write([7])  // never read: level-triggered, but unregistered after one call
        #expect(done.wait())
        let later = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 20 * millisecond, leeway: 0) { _ in later.countDown() }
        #expect(later.wait())
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(loop.registrationCount == 0)
    }

    @Test func oneShotRegistrationsShareAnFdAndReArm() throws {
        let loop = EventLoop(name: "test.oneshot")
        defer { loop.shutdown() }
        let fd = cnv_eventfd(0, 1)  // always writable; readable once signalled
        defer { close(fd) }
        let reads = Atomic<Int>(0)
        let writes = Atomic<Int>(0)
        let readable = Countdown(1)
        let writable = Countdown(1)
        let reader = try loop.register(fd: fd, events: [.input, .oneShot]) { events in
            #expect(events == .input)
            reads.wrappingAdd(1, ordering: .relaxed)
            readable.countDown()
        }
        let writer = try loop.register(fd: fd, events: [.output, .oneShot]) { events in
            #expect(events == .output)
            writes.wrappingAdd(1, ordering: .relaxed)
            writable.countDown()
        }
        #expect(writable.wait())
        _ = cnv_eventfd_signal(fd)  // never drained: stays readable
        #expect(readable.wait())
        // Both disarmed after one event each, although both conditions still hold.
        let later = Countdown(1)
        loop.addTimer(clock: .monotonic, deadline: Clock.monotonicNanoseconds() + 20 * millisecond, leeway: 0) { _ in later.countDown() }
        #expect(later.wait())
        #expect(reads.load(ordering: .relaxed) == 1)
        #expect(writes.load(ordering: .relaxed) == 1)
        #expect(try loop.modify(reader, events: [.input, .oneShot]))
        #expect(eventually { reads.load(ordering: .relaxed) == 2 })
        loop.unregister(reader)
        loop.unregister(writer)
        #expect(try !loop.modify(writer, events: .output))
    }

    @Test func regularFilesAreRefused() {
        let loop = EventLoop(name: "test.refuse")
        defer { loop.shutdown() }
        let fd = open("/proc/self/status", O_RDONLY)
        defer { close(fd) }
        #expect(throws: EventLoopError(errno: EPERM)) {
            _ = try loop.register(fd: fd, events: .input) { _ in }
        }
        #expect(loop.registrationCount == 0)
    }
}
