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

import Glibc
import Synchronization

/// What every correct GCD keeps, checked as the blocks of one program run.
///
/// Time is a logical clock (`tick`): one atomic counter, so "before" means before in the
/// order of those atomic operations, which every thread agrees on.
final class Checker: @unchecked Sendable {
    let program: Program
    private let clock = Atomic<Int>(1)
    /// Blocks that must still run (or finish) before the program is complete.
    let outstanding = Atomic<Int>(0)
    private let nextContext = Atomic<Int>(1)
    /// Per queue: running blocks in the low bits, `barrierBit` while a barrier runs.
    private let occupancy: [Cell]
    /// Per queue: the tick at which it was activated (0 while inactive; -1 if made active).
    private let activated: [Cell]
    private let state = Locked(State())

    private static let barrierBit = 1 << 40

    private struct State {
        var violations: [String] = []
        /// Per (submitting context, serial queue): the last submission number that started.
        var lastStarted: [Key: Int] = [:]
        /// Every numbered submission that started: a second start is a block run twice.
        var startedSubmissions: Set<Submission> = []
        var started: [Int] = []
        var finished: [Int] = []
    }

    struct Key: Hashable { let context: Int, queue: Int }
    struct Submission: Hashable { let context: Int, queue: Int, number: Int }

    init(program: Program) {
        self.program = program
        occupancy = program.queues.map { _ in Cell(0) }
        activated = program.queues.map { Cell($0.inactive ? 0 : -1) }
        state.withLock {
            $0.started = Array(repeating: 0, count: program.queues.count)
            $0.finished = Array(repeating: 0, count: program.queues.count)
        }
    }

    @discardableResult
    func tick() -> Int { clock.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue }

    /// A new submitting context (a plain thread, or one run of a block).
    func newContext() -> Int { nextContext.wrappingAdd(1, ordering: .relaxed).oldValue }

    func fail(_ message: String) {
        state.withLock { if $0.violations.count < 50 { $0.violations.append(message) } }
    }

    var violations: [String] { state.withLock { $0.violations } }

    func expect(_ count: Int = 1) { outstanding.wrappingAdd(count, ordering: .sequentiallyConsistent) }
    func done(_ count: Int = 1) { outstanding.wrappingSubtract(count, ordering: .sequentiallyConsistent) }

    func markActivated(_ queue: Int) { activated[queue].value.store(tick(), ordering: .sequentiallyConsistent) }

    /// Where a submission came from and its number among that context's submissions to
    /// the queue: for exactly-once, and for FIFO on serial queues when `fifo`.
    struct Order { let context: Int, number: Int, fifo: Bool }

    /// Called first thing in every block that runs on `queue`.
    func enter(_ queue: Int, barrier: Bool, what: String, order: Order?) {
        let now = tick()
        for index in program.chain(queue) {
            let at = activated[index].value.load(ordering: .sequentiallyConsistent)
            if at == 0 || at > now { fail("\(what) started on q\(queue) before q\(index) was activated") }
            let word = occupancy[index]
            if program.queues[index].serial {
                let old = word.value.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
                if old != 0 { fail("\(what) started on q\(queue) while another block ran inside serial q\(index)") }
            } else if barrier && index == queue {
                let old = word.value.wrappingAdd(Self.barrierBit + 1, ordering: .sequentiallyConsistent).oldValue
                if old != 0 { fail("barrier \(what) started on q\(queue) while \(old & (Self.barrierBit - 1)) other block(s) ran there") }
            } else {
                let old = word.value.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
                if old & Self.barrierBit != 0 { fail("\(what) started on q\(queue) while a barrier ran on q\(index)") }
                if let width = program.queues[index].width, old & (Self.barrierBit - 1) >= width {
                    fail("\(what) started on q\(queue) while \(old & (Self.barrierBit - 1)) block(s) ran inside q\(index) of width \(width)")
                }
            }
        }
        state.withLock { state in
            state.started[queue] += 1
            guard let order else { return }
            if !state.startedSubmissions.insert(Submission(context: order.context, queue: queue, number: order.number)).inserted {
                state.violations.append("\(what) on q\(queue): submission \(order.number) of context \(order.context) ran twice")
            }
            guard order.fifo else { return }
            let key = Key(context: order.context, queue: queue)
            if let last = state.lastStarted[key], last > order.number {
                state.violations.append("\(what) on serial q\(queue): submission \(order.number) of context \(order.context) started after its submission \(last)")
            }
            state.lastStarted[key] = order.number
        }
    }

    /// Called last thing in every block that `enter` saw.
    func leave(_ queue: Int, barrier: Bool) {
        for index in program.chain(queue) {
            let amount = !program.queues[index].serial && barrier && index == queue ? Self.barrierBit + 1 : 1
            occupancy[index].value.wrappingSubtract(amount, ordering: .sequentiallyConsistent)
        }
        state.withLock { $0.finished[queue] += 1 }
    }

    /// Started and finished blocks per queue, for a hang report.
    func queueCounts() -> [(started: Int, finished: Int)] {
        state.withLock { state in zip(state.started, state.finished).map { (started: $0, finished: $1) } }
    }

    func occupancyDescription(_ queue: Int) -> String {
        let word = occupancy[queue].value.load(ordering: .relaxed)
        let at = activated[queue].value.load(ordering: .relaxed)
        return "\(word & (Self.barrierBit - 1)) running\(word & Self.barrierBit != 0 ? " (barrier)" : "")\(at == 0 ? ", never activated" : "")"
    }
}

/// Counts how often something ran; reports a second run.
final class Once: @unchecked Sendable {
    private let runs = Atomic<Int>(0)
    let what: String
    init(_ what: String) { self.what = what }

    /// Records a run; false (and a violation) if it had run before.
    func run(_ checker: Checker) {
        if runs.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue != 0 { checker.fail("\(what) ran twice") }
    }
    var count: Int { runs.load(ordering: .sequentiallyConsistent) }
}

/// A group fan-out's members, as its notify and wait must see them.
final class GroupRecord: @unchecked Sendable {
    let members: Int
    let finished = Atomic<Int>(0)
    let released = Atomic<Int>(0)
    init(members: Int) { self.members = members }

    /// Checks that every member finished and let go of its captures.
    func check(_ checker: Checker, after what: String) {
        let finished = finished.load(ordering: .sequentiallyConsistent)
        if finished != members { checker.fail("\(what) came after \(finished) of \(members) members finished") }
        let released = released.load(ordering: .sequentiallyConsistent)
        if released != members {
            checker.fail("\(what) came before \(members - released) of \(members) members' captures were released")
        }
    }
}

/// Captured by a group member's closure: counts its release.
final class Capture: @unchecked Sendable {
    let record: GroupRecord
    init(_ record: GroupRecord) { self.record = record }
    deinit { record.released.wrappingAdd(1, ordering: .sequentiallyConsistent) }
}

/// A suspended queue's window: blocks submitted inside it must not start before `resumed`.
final class SuspendWindow: @unchecked Sendable {
    let resumed = Atomic<Int>(0)
}

/// An atomic integer that can sit in an array.
final class Cell: @unchecked Sendable {
    let value: Atomic<Int>
    init(_ initial: Int) { value = Atomic(initial) }
}

/// The deadline of an `asyncAfter` or a timer's first event (`Program.Op.after`, `.timer`):
/// one in three (chosen from the delay, so seeds keep their programs) is a wall-clock
/// deadline (`asyncAfter(wallDeadline:)`, `schedule(wallDeadline:)`, `dispatch_walltime`). Taken before the call, so the library's own is no earlier; a
/// block must not start before it, on its clock (a wall deadline follows CLOCK_REALTIME
/// even when that clock is set).
final class AfterDeadline: @unchecked Sendable {
    let wall: Bool
    private let deadline: Int

    init(_ microseconds: Int) {
        wall = microseconds % 3 == 0
        deadline = nanoseconds(on: wall ? CLOCK_REALTIME : CLOCK_MONOTONIC) + microseconds * 1_000
    }

    func check(_ checker: Checker, what: String) {
        let early = deadline - nanoseconds(on: wall ? CLOCK_REALTIME : CLOCK_MONOTONIC)
        if early > 0 { checker.fail("\(what) ran \(early) ns before its \(wall ? "wall-clock " : "")deadline") }
    }
}
