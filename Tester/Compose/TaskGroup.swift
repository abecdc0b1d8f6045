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
import Synchronization

/// Swift concurrency meeting the program's queues (`Program.Op.taskGroup`, Swift API): a
/// task runs a task group of `children` child tasks; each awaits a continuation that a
/// block of `q` resumes, sleeps `sleepMicroseconds` when set (the three forms of
/// `Task.sleep` in turn), and then calls a default
/// actor that counts. With `cancelAfter`, a block of `q` cancels the task that many µs
/// after it started (children sleeping then must wake). Every child must finish once
/// (cancelled or not, its block resumes it), a sleep must not end early unless it threw
/// because its task was cancelled, the actor's calls must never overlap, and the group
/// must see every child's result once. With `wait` the caller (a plain thread) blocks on
/// a semaphore until the task ends.
///
/// On Conveyor the tasks run on Conveyor's global executor (main.swift installs it); on
/// the toolchain's Dispatch, on its default executor (and under the drop-in library that
/// is Conveyor again, through libdispatch's names).
extension Runner {
    func taskGroup(_ q: Int, children: Int, sleepMicroseconds: Int?, cancelAfter: Int?, wait: Bool) {
        let what = "task group resumed from q\(q)"
        let finished = DispatchSemaphore(value: 0)
        let counter = CountingActor(checker, what: what)
        checker.expect()
        let task = Task.detached { [self] in
            let seen = await withTaskGroup(of: Int.self, returning: [Int].self) { group in
                for child in 0..<children {
                    group.addTask { [self] in
                        await awaitBlock(of: q, child: child, what: what)
                        if let sleepMicroseconds { await checkedSleep(sleepMicroseconds, form: child % 3, what: what) }
                        await counter.add(child)
                        return child
                    }
                }
                var seen: [Int] = []
                for await child in group { seen.append(child) }
                return seen
            }
            if seen.sorted() != Array(0..<children) { checker.fail("\(what): the group saw children \(seen.sorted()) of \(children)") }
            let total = await counter.total
            if total != children * (children - 1) / 2 { checker.fail("\(what): the actor counted \(total)") }
            checker.done()
            finished.signal()
        }
        if let cancelAfter {
            checker.expect()
            queues[q].asyncAfter(deadline: .now() + .microseconds(cancelAfter)) { [self] in
                runBlock(q, barrier: false, what: "\(what): the block cancelling the task", order: nil) { _ in task.cancel() }
            }
        }
        if wait, finished.wait(timeout: .now() + liveness) == .timedOut {
            checker.fail("\(what): the task did not end within \(liveness) s")
        }
    }

    /// A child's wait for a block of `q`, which resumes it once.
    private func awaitBlock(of q: Int, child index: Int, what: String) async {
        checker.expect()
        let resumed = Once("\(what): the block resuming child \(index)")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queues[q].async { [self] in
                runBlock(q, barrier: false, what: "\(what): the block resuming child \(index)", order: nil) { _ in
                    resumed.run(checker)
                    continuation.resume()
                }
            }
        }
    }

    /// `Task.sleep` in one of its three forms (the children of a group take turns): for
    /// nanoseconds, for a duration on `ContinuousClock` (which the runtime passes on as a
    /// deadline on the clock that counts sleep: CTime.swift), and until a deadline on
    /// `SuspendingClock`. Never early on the clock it uses, unless it threw because the
    /// task was cancelled.
    private func checkedSleep(_ microseconds: Int, form: Int, what: String) async {
        let duration = Duration.microseconds(microseconds)
        let (continuousStart, suspendingStart) = (ContinuousClock.now, SuspendingClock.now)
        let slept: Duration
        do {
            switch form {
            case 0:
                try await Task.sleep(nanoseconds: UInt64(microseconds) * 1_000)
                slept = ContinuousClock.now - continuousStart
            case 1:
                try await Task.sleep(for: duration)
                slept = ContinuousClock.now - continuousStart
            default:
                try await Task.sleep(until: suspendingStart + duration, clock: .suspending)
                slept = SuspendingClock.now - suspendingStart
            }
        } catch {
            if !Task.isCancelled { checker.fail("\(what): Task.sleep threw \(error) in a task not cancelled") }
            return
        }
        if slept < duration { checker.fail("\(what): Task.sleep (form \(form)) of \(microseconds) µs ended after \(slept)") }
    }
}

/// A default actor (no executor of its own) that counts what its callers add; its calls
/// must never overlap.
actor CountingActor {
    private let checker: Checker
    private let what: String
    private let inside = Atomic<Bool>(false)
    private(set) var total = 0

    init(_ checker: Checker, what: String) {
        self.checker = checker
        self.what = what
    }

    func add(_ value: Int) {
        if inside.exchange(true, ordering: .acquiring) { checker.fail("\(what): two calls of one actor ran at once") }
        total += value
        inside.store(false, ordering: .releasing)
    }
}
