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
import CComposeConveyor
import Conveyor
#else
import CComposeDispatch
import Dispatch
#endif
import Glibc

extension Program {
    /// What a `timedWaits` operation waits for with short timeouts, and how a `postAndWait`
    /// operation's members wait.
    enum TimedWait: Int, Sendable, CaseIterable { case semaphore, group, workItem }

    /// `threads` with timed waits and counting semaphores put in between what they do,
    /// from a stream of their own (seeds keep their programs), on plain threads only: both
    /// wait.
    static func addingWaits(to threads: [[Op]], seed: UInt64, queues: [Queue]) -> [[Op]] {
        var random = SeededRandom(seed: seed ^ 0x5741_4954_5300)
        let eligible = queues.filter { !$0.main }.map(\.index)
        var threads = threads
        for index in threads.indices where random.percent(30) {
            let q = eligible[random.below(eligible.count)]
            let op: Op = if random.percent(50) {
                .timedWaits(queue: q, kind: TimedWait.allCases[random.below(TimedWait.allCases.count)],
                            members: random.within(1...8), spreadMicroseconds: random.below(2_000),
                            timeoutMicroseconds: random.within(1...300))
            } else {
                .semaphoreLimit(queue: q, value: random.within(1...3), members: random.within(2...24), timed: random.percent(50))
            }
            threads[index].insert(op, at: random.below(threads[index].count + 1))
        }
        return threads
    }
}

/// A semaphore through the program's API: a `DispatchSemaphore`, or a C
/// `dispatch_semaphore_t`.
struct SemaphoreHandle: Sendable {
    /// Waits at most that many microseconds, or for ever when nil: false when it timed out.
    let wait: @Sendable (Int?) -> Bool
    let signal: @Sendable () -> Void
    /// Lets the semaphore go (C); only once its value is back to where it started
    /// (libdispatch traps otherwise).
    let release: @Sendable () -> Void
}

extension Runner {
    func makeSemaphore(_ value: Int) -> SemaphoreHandle {
        if program.api == .c {
            // A C handle is an address, safe to pass between threads.
            nonisolated(unsafe) let semaphore = compose_c_semaphore_create(value)!
            return SemaphoreHandle(
                wait: { microseconds in compose_c_semaphore_wait(semaphore, microseconds.map { UInt64($0) * 1_000 } ?? .max) == 0 },
                signal: { compose_c_semaphore_signal(semaphore) },
                release: { compose_c_release(semaphore) })
        }
        let semaphore = DispatchSemaphore(value: value)
        return SemaphoreHandle(
            wait: { microseconds in
                guard let microseconds else { semaphore.wait(); return true }
                return semaphore.wait(timeout: .now() + .microseconds(microseconds)) == .success
            },
            signal: { semaphore.signal() },
            release: {})
    }

    /// `body` as a block of the program's queue `q`, `microseconds` from now.
    func submitAfter(_ q: Int, microseconds: Int, _ body: @escaping @Sendable () -> Void) {
        if program.api == .c {
            compose_c_after(cQueues[q], UInt64(microseconds) * 1_000, 0, context(body), runContext)
        } else {
            queues[q].asyncAfter(deadline: .now() + .microseconds(microseconds), execute: body)
        }
    }

    /// Waits of `timeoutMicroseconds` at a time (`Program.Op.timedWaits`, plain threads)
    /// for what `members` blocks of `q` do over `spreadMicroseconds`: signal a semaphore,
    /// leave a group, or run as one work item (then one member, after the whole spread).
    /// Most waits time out while the blocks are still coming. A wait that times out must
    /// take nothing with it: the semaphore is taken exactly once per signal, and never
    /// before that signal; a group wait or a work item's wait that succeeds comes after
    /// what it waits for, and the group's next wait succeeds at once (an item may be
    /// waited for again only after waits that timed out: both libraries trap otherwise).
    func timedWaits(_ q: Int, kind: Program.TimedWait, members: Int, spread: Int, timeout: Int, from submitter: Submitter) {
        let deadline = monotonicNanoseconds() + Int(liveness * 1e9)
        let what = "timed waits of \(timeout) us on q\(q)"
        func delay(_ member: Int) -> Int { members > 1 ? spread * member / (members - 1) : spread }
        switch kind {
        case .semaphore:
            let semaphore = makeSemaphore(0)
            defer { semaphore.release() }
            let signalled = Cell(0)
            for member in 0..<members {
                let order = submitter.unordered(q)
                checker.expect()
                submitAfter(q, microseconds: delay(member)) { [self] in
                    runBlock(q, barrier: false, what: "a semaphore's signaller (\(what))", order: order) { _ in
                        signalled.value.wrappingAdd(1, ordering: .sequentiallyConsistent)
                        semaphore.signal()
                    }
                }
            }
            var taken = 0
            while taken < members && monotonicNanoseconds() < deadline {
                guard semaphore.wait(timeout) else { continue }
                taken += 1
                let signals = signalled.value.load(ordering: .sequentiallyConsistent)
                if signals < taken { checker.fail("\(what): the semaphore was taken \(taken) times after \(signals) signals") }
            }
            if taken < members {
                checker.fail("\(what): the semaphore was taken \(taken) times of \(members) signals within \(liveness) s")
            } else if semaphore.wait(0) {
                checker.fail("\(what): the semaphore was taken \(members + 1) times after \(members) signals")
                semaphore.signal()
            }
        case .group:
            let group = makeGroup()
            defer { group.release() }
            let record = GroupRecord(members: members)
            let leave = group.leave
            for member in 0..<members {
                let order = submitter.unordered(q)
                let capture = Capture(record)
                checker.expect()
                group.enter()
                submitAfter(q, microseconds: delay(member)) { [self] in
                    withExtendedLifetime(capture) {}
                    runBlock(q, barrier: false, what: "a group member (\(what))", order: order) { _ in }
                    record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
                    leave()
                }
            }
            var done = false
            while !done && monotonicNanoseconds() < deadline { done = group.wait(Double(timeout) / 1e6) }
            if !done {
                checker.fail("\(what): the group of \(members) members did not empty within \(liveness) s")
            } else {
                // The members' captures are let go after `leave`: wait for them.
                while record.released.load(ordering: .sequentiallyConsistent) < members && monotonicNanoseconds() < deadline {
                    sched_yield()
                }
                record.check(checker, after: "a timed group wait that succeeded")
                if !group.wait(0) { checker.fail("\(what): a group wait timed out after one had succeeded") }
            }
        case .workItem:
            let ran = Flag()
            let order = submitter.unordered(q)
            checker.expect()
            let item = makeWorkItem(barrier: false) { [self] in
                runBlock(q, barrier: false, what: "a work item (\(what))", order: order) { _ in }
                ran.set()
            }
            item.submitAfter(q, spread)
            var done = false
            while !done && monotonicNanoseconds() < deadline { done = item.wait(Double(timeout) / 1e6) }
            if !done {
                checker.fail("\(what): the work item did not run within \(liveness) s")
            } else {
                if !ran.isSet { checker.fail("\(what): a wait for a work item succeeded before the item ended") }
                // Only once it ran: until then the C trampoline may still submit it.
                item.release()
            }
        }
    }

    /// A semaphore of `value` guarding `members` group blocks of `q`
    /// (`Program.Op.semaphoreLimit`, plain threads): each takes it (in waits of 50 us when
    /// `timed`, else one wait without a timeout), holds it briefly and gives it back; every
    /// other member first posts a block to `q`, which its worker may still hold when it
    /// blocks. No more than `value` members hold it at once, and afterwards it holds
    /// `value` again: exactly `value` waits that do not wait succeed.
    func semaphoreLimit(_ q: Int, value: Int, members: Int, timed: Bool, from submitter: Submitter) {
        let semaphore = makeSemaphore(value)
        let holders = Cell(0)
        let group = makeGroup()
        defer { group.release() }
        let what = "a member holding a semaphore of \(value)\(timed ? " (timed waits)" : "")"
        for member in 0..<members {
            let order = submitter.order(q, in: program)
            checker.expect()
            group.async(q) { [self] in
                runBlock(q, barrier: false, what: what, order: order) { inner in
                    if member % 2 == 0 { perform([.async(queue: q, barrier: false, body: [])], from: inner) }
                    if timed {
                        let deadline = monotonicNanoseconds() + Int(liveness * 1e9)
                        while !semaphore.wait(50) {
                            guard monotonicNanoseconds() < deadline else {
                                checker.fail("\(what) on q\(q) did not get it within \(liveness) s")
                                return
                            }
                        }
                    } else if !semaphore.wait(nil) {
                        checker.fail("a wait without a timeout for a semaphore on q\(q) returned without it")
                        return
                    }
                    let holding = holders.value.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
                    if holding > value { checker.fail("\(holding) members on q\(q) held a semaphore of \(value) at once") }
                    sched_yield()
                    holders.value.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                    semaphore.signal()
                }
            }
        }
        guard group.wait(liveness) else {
            // Members may still hold it: leave the semaphore to them (a small leak).
            checker.fail("\(members) members holding a semaphore of \(value) on q\(q) did not finish within \(liveness) s")
            return
        }
        var back = 0
        while back < value && semaphore.wait(0) { back += 1 }
        if back < value {
            // Let go below its value, libdispatch's semaphore traps: keep it (a small leak).
            checker.fail("a semaphore of \(value) held \(back) after its members on q\(q) gave it back")
            return
        }
        if semaphore.wait(0) {
            checker.fail("a semaphore of \(value) held more than \(value) after its members on q\(q) gave it back")
            semaphore.signal()
        }
        for _ in 0..<back { semaphore.signal() }
        semaphore.release()
    }
}
