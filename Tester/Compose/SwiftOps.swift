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

/// The operations through the Swift API.
extension Runner {
    func performSwift(_ op: Program.Op, from submitter: Submitter) {
        switch op {
        case let .async(q, barrier, body, given):
            let order = submitter.order(q, in: program)
            checker.expect()
            var flags: DispatchWorkItemFlags = barrier ? .barrier : []
            if let given { flags.formUnion([[], .enforceQoS, .inheritQoS, .detached][given.flag.rawValue]) }
            queues[q].async(qos: given.map { Runner.qos($0.qos) } ?? .unspecified, flags: flags) { [self] in
                runBlock(q, barrier: barrier, what: "async", order: order) { perform(body, from: $0) }
            }
        case let .sync(q, barrier, body):
            let order = submitter.order(q, in: program)
            let caller = pthread_self()
            checker.expect()
            queues[q].sync(flags: barrier ? .barrier : []) {
                if pthread_equal(caller, pthread_self()) == 0 { checker.fail("sync to q\(q) ran on another thread") }
                runBlock(q, barrier: barrier, what: "sync", order: order) { perform(body, from: $0) }
            }
        case let .after(q, microseconds, body):
            let order = submitter.unordered(q)
            checker.expect()
            let onTime = AfterDeadline(microseconds)
            let work: @Sendable () -> Void = { [self] in
                onTime.check(checker, what: "asyncAfter on q\(q)")
                runBlock(q, barrier: false, what: "asyncAfter", order: order) { perform(body, from: $0) }
            }
            if onTime.wall {
                queues[q].asyncAfter(wallDeadline: .now() + .microseconds(microseconds), execute: work)
            } else {
                queues[q].asyncAfter(deadline: .now() + .microseconds(microseconds), execute: work)
            }
        case let .fanOut(q, members, notify, wait):
            fanOut(q, members: members, notify: notify, wait: wait, from: submitter)
        case let .groupWaves(q, waves, notify, manual, waitBetween):
            groupWaves(q, waves: waves, notify: notify, manual: manual, waitBetween: waitBetween, from: submitter)
        case let .workItem(q, barrier, cancel, notify, wait):
            workItem(q, barrier: barrier, cancel: cancel, notify: notify, wait: wait, from: submitter)
        case let .perform(iterations, q, every):
            let runs = SeenIterations(iterations)
            DispatchQueue.concurrentPerform(iterations: iterations) { [self] index in
                runs.count(index)
                if let q, index % every == 0 { performSwift(.async(queue: q, barrier: false, body: []), from: Submitter(checker)) }
            }
            runs.check(checker)
        case let .timer(q, microseconds, ticks):
            timer(q, microseconds: microseconds, ticks: ticks)
        case let .dataSource(q, merges):
            dataSource(q, merges: merges)
        case let .pipe(q, chunks, bytes, suspendSource):
            pipe(q, chunks: chunks, bytes: bytes, suspendSource: suspendSource)
        case let .writeSource(q, bytes):
            writeSource(q, bytes: bytes)
        case let .channel(q, chunks, bytes, highWater, writeQueue, keepChannel):
            channel(q, chunks: chunks, bytes: bytes, highWater: highWater, writeQueue: writeQueue, keepChannel: keepChannel)
        case let .suspend(q, submissions):
            let window = SuspendWindow()
            queues[q].suspend()
            for _ in 0..<submissions {
                let order = submitter.order(q, in: program)
                checker.expect()
                queues[q].async { [self] in
                    runBlock(q, barrier: false, what: "async while suspended", order: order, window: window) { _ in }
                }
            }
            window.resumed.store(checker.tick(), ordering: .sequentiallyConsistent)
            queues[q].resume()
        case let .mainQueue(actor, body):
            let q = program.queues.count - 1
            let order = submitter.order(q, in: program)
            checker.expect()
            if actor {
                Task { @MainActor [self] in
                    runBlock(q, barrier: false, what: "MainActor task", order: order) { perform(body, from: $0) }
                }
            } else {
                DispatchQueue.main.async { [self] in
                    runBlock(q, barrier: false, what: "main-queue block", order: order) { perform(body, from: $0) }
                }
            }
        case let .actorCalls(q, calls, body):
            checker.expect(calls)
            #if CONVEYOR
            guard let serialQueue = queues[q] as? DispatchSerialQueue else {
                preconditionFailure("q\(q) was made as a DispatchSerialQueue (Runner.makeQueues)")
            }
            let actor = QueueActor(queue: serialQueue, runner: self, index: q)
            // Each call once: a job the executor ran twice would otherwise cancel out
            // against one it lost in the count of outstanding blocks.
            let onces = (0..<calls).map { _ in Once("actor method") }
            Task.detached {
                for once in onces { await actor.call(body, once: once) }
            }
            #else
            // The toolchain's Dispatch has no queue executors on Linux: plain blocks stand in.
            for _ in 0..<calls {
                let order = submitter.order(q, in: program)
                queues[q].async { [self] in
                    runBlock(q, barrier: false, what: "actor method (a block on Dispatch)", order: order) { perform(body, from: $0) }
                }
            }
            #endif
        case let .cancelQueued(q, barrier, notify, wait):
            cancelQueued(q, barrier: barrier, notify: notify, wait: wait, from: submitter)
        case let .cancelSuspended(q, microseconds, pause):
            cancelSuspended(q, microseconds: microseconds, pause: pause)
        case let .taskGroup(q, children, sleepMicroseconds, cancelAfter, wait):
            taskGroup(q, children: children, sleepMicroseconds: sleepMicroseconds, cancelAfter: cancelAfter, wait: wait)
        case let .sourceStream(q, ticks, microseconds, consumerStops):
            sourceStream(q, ticks: ticks, microseconds: microseconds, consumerStops: consumerStops)
        case let .executorTask(q, steps, body):
            executorTask(q, steps: steps, body: body)
        case let .transient(serial, blocks, resubmit, group):
            transient(serial: serial, blocks: blocks, resubmit: resubmit, group: group)
        case .applyOn, .retarget:
            preconditionFailure("the generator makes no \(op) for the Swift API")
        case let .crowd(q, members, serial, barrier):
            crowd(q, members: members, serial: serial, barrier: barrier, from: submitter)
        case let .busyPoster(q, members, serial):
            busyPoster(q, members: members, serial: serial, from: submitter)
        case let .postAndWait(q, members, targetQoS, target, kind):
            postAndWait(q, members: members, targetQoS: targetQoS, target: target, kind: kind, from: submitter)
        case let .timedWaits(q, kind, members, spread, timeout):
            timedWaits(q, kind: kind, members: members, spread: spread, timeout: timeout, from: submitter)
        case let .semaphoreLimit(q, value, members, timed):
            semaphoreLimit(q, value: value, members: members, timed: timed, from: submitter)
        case let .dataMerges(q, kind, merges, from, replaceAfter):
            dataMerges(q, kind: kind, merges: merges, from: from, replaceHandlerAfter: replaceAfter, from: submitter)
        case let .signals(q, signal, sources, rounds, raiseFrom, suspendFirst):
            signals(q, signal: Program.testSignals[signal], sources: sources, rounds: rounds, raiseFrom: raiseFrom,
                    suspendFirst: suspendFirst, from: submitter)
        case let .reschedule(q, first, before, second, after, place):
            reschedule(q, firstMicroseconds: first, ticksBefore: before, secondMicroseconds: second, ticksAfter: after,
                       from: place, submitter: submitter)
        case let .fileChannel(q, writes, chunk, reads, byPath, barrier, stopEarly):
            fileChannel(q, writes: writes, chunk: chunk, reads: reads, byPath: byPath, barrier: barrier, stopEarly: stopEarly)
        case let .processExit(q, sources, exitFirst, suspendFirst, cancelFirst):
            processExit(q, sources: sources, exitFirst: exitFirst, suspendFirst: suspendFirst, cancelFirst: cancelFirst)
        case let .semaphore(q):
            let semaphore = DispatchSemaphore(value: 0)
            let order = submitter.order(q, in: program)
            checker.expect()
            queues[q].async { [self] in
                runBlock(q, barrier: false, what: "semaphore signaller", order: order) { _ in semaphore.signal() }
            }
            if semaphore.wait(timeout: .now() + liveness) == .timedOut { checker.fail("semaphore wait on q\(q)'s signal timed out") }
        }
    }

    /// A queue of its own, let go right after its blocks were submitted.
    private func transient(serial: Bool, blocks: Int, resubmit: Bool, group: Bool) {
        let queue = DispatchQueue(label: "compose.transient", attributes: serial ? [] : .concurrent)
        let dispatchGroup = group ? DispatchGroup() : nil
        let record = GroupRecord(members: blocks + (resubmit ? 1 : 0))
        checker.expect(record.members)
        for index in 0..<blocks {
            let capture = Capture(record)
            queue.async(group: dispatchGroup) { [self] in
                withExtendedLifetime(capture) {}
                if resubmit && index == 0 {
                    let capture = Capture(record)
                    queue.async(group: dispatchGroup) { [self] in
                        withExtendedLifetime(capture) {}
                        record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
                        checker.done()
                    }
                }
                record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
                checker.done()
            }
        }
        if let dispatchGroup {
            checker.expect()
            dispatchGroup.notify(queue: .global()) { [self] in
                record.check(checker, after: "the notify of a transient queue's group")
                checker.done()
            }
        }
    }

    private func timer(_ q: Int, microseconds: Int, ticks: Int) {
        let source = DispatchSource.makeTimerSource(queue: queues[q])
        let state = SourceState(ticks: ticks, source: source)
        let onTime = AfterDeadline(microseconds)
        watch(source, on: q, named: "timer", state: state) { [self] in
            onTime.check(checker, what: "a timer on q\(q)")
            return 1
        }
        let interval = DispatchTimeInterval.microseconds(microseconds), leeway = DispatchTimeInterval.microseconds(microseconds / 4)
        if onTime.wall {
            source.schedule(wallDeadline: .now() + interval, repeating: interval, leeway: leeway)
        } else {
            source.schedule(deadline: .now() + interval, repeating: interval, leeway: leeway)
        }
        source.activate()
    }

    private func dataSource(_ q: Int, merges: Int) {
        let source = DispatchSource.makeUserDataAddSource(queue: queues[q])
        let state = SourceState(ticks: merges * (merges + 1) / 2, source: source)
        watch(source, on: q, named: "data source", state: state) { Int(source.data) }
        source.activate()
        for value in 1...merges { source.add(data: UInt(value)) }
    }

    /// Sets `source`'s handlers as blocks of `q` for the checker: each event adds what
    /// `amount` returns to `state` and cancels the source once the expected total arrived;
    /// the cancel handler, expected once, checks that total.
    private func watch(_ source: any DispatchSourceProtocol, on q: Int, named name: String, state: SourceState,
                       amount: @escaping () -> Int) {
        // The toolchain's source types are not Sendable; the handlers run one at a time.
        final class Amount: @unchecked Sendable { let read: () -> Int; init(_ read: @escaping () -> Int) { self.read = read } }
        let amount = Amount(amount)
        checker.expect()
        source.setEventHandler { [self] in
            let added = amount.read()
            enterBlock(q, what: "\(name) event")
            if state.add(added, checker, what: "\(name) on q\(q)") { state.cancel() }
            checker.leave(q, barrier: false)
        }
        source.setCancelHandler { [self] in
            enterBlock(q, what: "\(name) cancel handler")
            state.cancelled(checker, what: "\(name) on q\(q)")
            checker.leave(q, barrier: false)
            checker.done()
        }
    }
}

#if CONVEYOR
/// An actor on one of the program's serial queues: its methods are blocks of that queue
/// for the checker (exclusion with the queue's other blocks and its targets').
actor QueueActor {
    let queue: DispatchSerialQueue
    let runner: Runner
    let index: Int

    init(queue: DispatchSerialQueue, runner: Runner, index: Int) {
        self.queue = queue
        self.runner = runner
        self.index = index
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }

    func call(_ body: [Program.Op], once: Once) {
        once.run(runner.checker)
        runner.runBlock(index, barrier: false, what: "actor method", order: nil) { runner.perform(body, from: $0) }
    }
}
#endif

/// The iterations of one `concurrentPerform`: each must run exactly once before it returns.
final class SeenIterations: @unchecked Sendable {
    private let seen: [Cell]
    init(_ iterations: Int) { seen = (0..<iterations).map { _ in Cell(0) } }
    func count(_ index: Int) { seen[index].value.wrappingAdd(1, ordering: .sequentiallyConsistent) }
    func check(_ checker: Checker) {
        for (index, runs) in seen.enumerated() where runs.value.load(ordering: .sequentiallyConsistent) != 1 {
            checker.fail("concurrentPerform returned with iteration \(index) run \(runs.value.load(ordering: .relaxed)) times")
        }
    }
}

/// Set once, read from any thread.
final class Flag: @unchecked Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}

/// A source's handlers' shared state. The source is let go in the cancel handler, which
/// breaks the cycle through its own handlers.
final class SourceState: @unchecked Sendable {
    // The source is touched only under the lock.
    private struct State: @unchecked Sendable { var count = 0; var cancelHandlerRan = false; var source: (any DispatchSourceProtocol)? }
    private let state: Locked<State>
    let target: Int

    init(ticks target: Int, source: any DispatchSourceProtocol) {
        self.target = target
        state = Locked(State(source: source))
    }

    func add(_ amount: Int, _ checker: Checker, what: String) -> Bool {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): an event handler ran after the cancel handler") }
            state.count += amount
            if state.count > target { checker.fail("\(what): \(state.count) events or data where \(target) were expected (an event after cancel?)") }
            return state.count == target
        }
    }

    func cancel() { state.withLock { $0.source }?.cancel() }

    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelHandlerRan = true
            if state.count != target { checker.fail("\(what): cancelled after \(state.count) of \(target) events or data") }
            state.source = nil
        }
    }
}
