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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import Glibc
import Synchronization

extension Program {
    /// Where a `reschedule` op gives its timer the new schedule.
    enum RescheduleFrom: Int, Sendable, CaseIterable {
        /// A block of the timer's own serial queue.
        case block
        /// The timer's event handler.
        case handler
        /// A block of the queue, with the timer suspended around the call.
        case suspendedBlock
    }

    /// `threads` with timers given a new schedule while they run (see `inserting`).
    static func addingReschedules(to threads: [[Op]], seed: UInt64, queues: [Queue], api: API) -> [[Op]] {
        let serial = queues.filter { $0.serial && !$0.global && !$0.main }.map(\.index)
        guard !serial.isEmpty else { return threads }
        return inserting(into: threads, seed: seed, salt: 0x5245_5343_4844, percent: 20, api: api) { random in
            Op.reschedule(queue: serial[random.below(serial.count)], firstMicroseconds: random.within(50...2_000),
                          ticksBefore: random.below(3), secondMicroseconds: random.within(100...1_500),
                          ticksAfter: random.within(1...4),
                          from: RescheduleFrom.allCases[random.below(RescheduleFrom.allCases.count)])
        }
    }
}

extension Runner {
    /// A repeating timer on the serial queue `q` (`Program.Op.reschedule`), given a new
    /// start and interval after `ticksBefore` events, from a block of `q` or from its own
    /// event handler (so no handler runs during the call). `schedule` drops what the old
    /// schedule merged and not yet delivered: every event after it must come no earlier
    /// than the new start, and the fires its events count together no more than the new
    /// schedule has due by then. Cancelled after `ticksAfter` fires of the new schedule;
    /// the cancel handler runs once, last.
    func reschedule(_ q: Int, firstMicroseconds: Int, ticksBefore: Int, secondMicroseconds: Int, ticksAfter: Int,
                    from place: Program.RescheduleFrom, submitter: Submitter) {
        let what = "a timer on q\(q) rescheduled from its \(place) after \(ticksBefore) events"
        let source = DispatchSource.makeTimerSource(queue: queues[q])
        // The handlers and the blocks of `q` that touch the source run one at a time.
        let box = UncheckedBox(source)
        let record = RescheduleRecord(interval: secondMicroseconds * 1_000)
        let done = makeSemaphore(0)
        let checker = checker
        /// Gives the timer its new schedule; the caller is a block of `q` or its handler.
        @Sendable func giveNewSchedule() {
            let start = monotonicNanoseconds() + secondMicroseconds * 1_000
            box.value.schedule(deadline: .now() + .microseconds(secondMicroseconds), repeating: .microseconds(secondMicroseconds),
                                leeway: .microseconds(secondMicroseconds / 4))
            record.rescheduled(start: start)
        }
        source.setEventHandler { [self] in
            let data = Int(box.value.data)
            let now = monotonicNanoseconds()
            enterBlock(q, what: "\(what): event handler")
            switch record.event(data, at: now, checker, what: what) {
            case .reschedule where place == .handler: giveNewSchedule()
            case .reschedule:
                let order = submitter.unordered(q)
                checker.expect()
                queues[q].async { [self] in
                    runBlock(q, barrier: false, what: "\(what): the block that reschedules", order: order) { _ in
                        if place == .suspendedBlock { box.value.suspend() }
                        giveNewSchedule()
                        if place == .suspendedBlock { box.value.resume() }
                    }
                }
            case .cancel: box.value.cancel()
            case .none: break
            }
            checker.leave(q, barrier: false)
        }
        checker.expect()
        source.setCancelHandler(handler: checkedHandler(q, what: "\(what): cancel handler", { record.cancelled(checker, what: what) },
                                                        after: { checker.done(); done.signal() }))
        record.expect(ticksBefore: ticksBefore, ticksAfter: ticksAfter)
        source.schedule(deadline: .now() + .microseconds(firstMicroseconds), repeating: .microseconds(firstMicroseconds),
                        leeway: .microseconds(firstMicroseconds / 4))
        if ticksBefore == 0 {
            // Rescheduled before the first event: from a block of `q`, before activation.
            let order = submitter.order(q, in: program)
            checker.expect()
            queues[q].async { [self] in
                runBlock(q, barrier: false, what: "\(what): the block that reschedules first", order: order) { _ in
                    giveNewSchedule()
                    box.value.activate()
                }
            }
        } else {
            source.activate()
        }
        if !done.wait(Int(liveness * 1e6)) {
            checker.fail("\(what): not cancelled within \(liveness) s: \(record.summary)")
        }
    }
}

/// What a rescheduled timer's events saw.
final class RescheduleRecord: @unchecked Sendable {
    enum Step { case none, reschedule, cancel }
    private struct State {
        var ticksBefore = 0
        var ticksAfter = 0
        var eventsBefore = 0
        /// The new schedule's start (monotonic ns), once given.
        var newStart: Int?
        var firesAfter = 0
        var askedToReschedule = false
        var cancelRequested = false
        var cancelled = false
    }
    private let interval: Int
    private let state = Locked(State())

    init(interval: Int) { self.interval = interval }

    var summary: String {
        state.withLock { "\($0.eventsBefore) events before the reschedule, \($0.firesAfter) fires after, rescheduled: \($0.newStart != nil)" }
    }

    func expect(ticksBefore: Int, ticksAfter: Int) {
        state.withLock { $0.ticksBefore = ticksBefore; $0.ticksAfter = ticksAfter }
    }

    /// The new schedule starts at `start`: its events come from then on.
    func rescheduled(start: Int) { state.withLock { $0.newStart = start } }

    /// An event counting `data` fires, which began at `now` (read as the handler started):
    /// what the op does next.
    func event(_ data: Int, at now: Int, _ checker: Checker, what: String) -> Step {
        state.withLock { state in
            if state.cancelled { checker.fail("\(what): an event handler ran after the cancel handler") }
            if data <= 0 { checker.fail("\(what): an event counted \(data) fires") }
            guard let start = state.newStart else {
                state.eventsBefore += 1
                if state.eventsBefore >= state.ticksBefore && !state.askedToReschedule {
                    state.askedToReschedule = true
                    return .reschedule
                }
                return .none
            }
            if now < start {
                checker.fail("\(what): an event \((start - now) / 1_000) us before the new schedule's start")
            }
            state.firesAfter += data
            let due = now < start ? 0 : (now - start) / interval + 1
            if state.firesAfter > due {
                checker.fail("\(what): \(state.firesAfter) fires counted after the reschedule, \(due) due by then")
            }
            if state.firesAfter >= state.ticksAfter && !state.cancelRequested {
                state.cancelRequested = true
                return .cancel
            }
            return .none
        }
    }

    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelled { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelled = true
        }
    }
}
