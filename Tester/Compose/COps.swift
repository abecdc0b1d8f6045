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
#else
import CComposeDispatch
#endif
import Glibc
import Synchronization

/// The operations through the C API (`dispatch_async_f` and its kin, Tester/CCompose):
/// contexts are retained closures, released by the trampoline that runs them.
extension Runner {
    func performC(_ op: Program.Op, from submitter: Submitter) {
        switch op {
        case let .async(q, barrier, body, given):
            let order = submitter.order(q, in: program)
            checker.expect()
            let work = context { [self] in
                runBlock(q, barrier: barrier, what: given == nil ? "dispatch_async_f" : "dispatch_async of a block with a QoS",
                         order: order) { perform(body, from: $0) }
            }
            if let given {
                compose_c_async_qos(cQueues[q], barrier ? 1 : 0, Int32(given.qos), Int32(given.flag.rawValue), work, runContext)
            } else {
                compose_c_async(cQueues[q], barrier ? 1 : 0, work, runContext)
            }
        case let .sync(q, barrier, body):
            let order = submitter.order(q, in: program)
            let caller = pthread_self()
            checker.expect()
            compose_c_sync(cQueues[q], barrier ? 1 : 0, context { [self] in
                if pthread_equal(caller, pthread_self()) == 0 { checker.fail("dispatch_sync_f to q\(q) ran on another thread") }
                runBlock(q, barrier: barrier, what: "dispatch_sync_f", order: order) { perform(body, from: $0) }
            }, runContext)
        case let .after(q, microseconds, body):
            let order = submitter.unordered(q)
            checker.expect()
            let onTime = AfterDeadline(microseconds)
            compose_c_after(cQueues[q], UInt64(microseconds) * 1_000, onTime.wall ? 1 : 0, context { [self] in
                onTime.check(checker, what: "dispatch_after_f on q\(q)")
                runBlock(q, barrier: false, what: "dispatch_after_f", order: order) { perform(body, from: $0) }
            }, runContext)
        case let .fanOut(q, members, notify, wait):
            fanOut(q, members: members, notify: notify, wait: wait, from: submitter)
        case let .perform(iterations, q, every):
            let runs = SeenIterations(iterations)
            let iteration = IterationBox { [self] index in
                runs.count(index)
                if let q, index % every == 0 { performC(.async(queue: q, barrier: false, body: []), from: Submitter(checker)) }
            }
            withExtendedLifetime(iteration) {
                compose_c_apply(iterations, Unmanaged.passUnretained(iteration).toOpaque()) { raw, index in
                    Unmanaged<IterationBox>.fromOpaque(raw!).takeUnretainedValue().body(index)
                }
            }
            runs.check(checker)
        case let .applyOn(q, iterations):
            let runs = SeenIterations(iterations)
            let iteration = IterationBox { [self] index in
                enterBlock(q, what: "dispatch_apply_f iteration")
                runs.count(index)
                checker.leave(q, barrier: false)
            }
            withExtendedLifetime(iteration) {
                compose_c_apply_on(iterations, cQueues[q], Unmanaged.passUnretained(iteration).toOpaque()) { raw, index in
                    Unmanaged<IterationBox>.fromOpaque(raw!).takeUnretainedValue().body(index)
                }
            }
            runs.check(checker)
        case let .timer(q, microseconds, ticks):
            let state = CTimerState(ticks: ticks)
            let onTime = AfterDeadline(microseconds)
            checker.expect()
            let nanoseconds = UInt64(microseconds) * 1_000
            _ = cSource(event: { [self] in
                enterBlock(q, what: "C timer event")
                onTime.check(checker, what: "a C timer on q\(q)")
                let last = state.event(checker, what: "C timer on q\(q)")
                checker.leave(q, barrier: false)
                return last
            }, cancelled: { [self] in
                enterBlock(q, what: "C timer cancel handler")
                state.cancelled(checker, what: "C timer on q\(q)")
                checker.leave(q, barrier: false)
                checker.done()
            }) {
                compose_c_timer_create(cQueues[q], nanoseconds, onTime.wall ? 1 : 0, nanoseconds, nanoseconds / 4, $0, $1, $2)
            }
        case let .pipe(q, chunks, bytes, suspendSource):
            pipe(q, chunks: chunks, bytes: bytes, suspendSource: suspendSource)
        case let .writeSource(q, bytes):
            writeSource(q, bytes: bytes)
        case let .channel(q, chunks, bytes, highWater, writeQueue, keepChannel):
            channel(q, chunks: chunks, bytes: bytes, highWater: highWater, writeQueue: writeQueue, keepChannel: keepChannel)
        case let .groupWaves(q, waves, notify, manual, waitBetween):
            groupWaves(q, waves: waves, notify: notify, manual: manual, waitBetween: waitBetween, from: submitter)
        case let .workItem(q, barrier, cancel, notify, wait):
            workItem(q, barrier: barrier, cancel: cancel, notify: notify, wait: wait, from: submitter)
        case let .cancelQueued(q, barrier, notify, wait):
            cancelQueued(q, barrier: barrier, notify: notify, wait: wait, from: submitter)
        case let .cancelSuspended(q, microseconds, pause):
            cancelSuspended(q, microseconds: microseconds, pause: pause)
        case .dataSource, .actorCalls, .mainQueue, .executorTask, .taskGroup, .sourceStream:
            preconditionFailure("the generator makes no \(op) for the C API")
        case let .suspend(q, submissions):
            let window = SuspendWindow()
            compose_c_suspend(cQueues[q])
            for _ in 0..<submissions {
                let order = submitter.order(q, in: program)
                checker.expect()
                compose_c_async(cQueues[q], 0, context { [self] in
                    runBlock(q, barrier: false, what: "dispatch_async_f while suspended", order: order, window: window) { _ in }
                }, runContext)
            }
            window.resumed.store(checker.tick(), ordering: .sequentiallyConsistent)
            compose_c_resume(cQueues[q])
        case let .transient(serial, blocks, resubmit, group):
            transient(serial: serial, blocks: blocks, resubmit: resubmit, group: group)
        case let .retarget(from, to, before, after, sync):
            retarget(from: from, to: to, before: before, after: after, sync: sync)
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
        case .dataMerges, .signals, .reschedule, .fileChannel, .processExit:
            preconditionFailure("the generator makes no \(op) for the C API")
        case let .semaphore(q):
            // The C API's semaphores are the Swift API's underneath in both libraries; a
            // group with one member waited for stands in for them here.
            performC(.fanOut(queue: q, members: 1, notify: nil, wait: true), from: submitter)
        }
    }
}

extension Runner {
    /// A queue (and a group) of its own, released right after the blocks were submitted:
    /// the handles must stay valid for the blocks (each reads the queue's context, one
    /// re-submits), and the finalizers must come after every block (libdispatch's rules).
    private func transient(serial: Bool, blocks: Int, resubmit: Bool, group: Bool) {
        let record = GroupRecord(members: blocks + (resubmit ? 1 : 0))
        let queue = compose_c_queue_create("compose.transient", serial ? 0 : 1, 0, nil, 2)!
        let cGroup = group ? compose_c_group_create() : nil
        let queueContext = finalizerContext { [self] in
            record.check(checker, after: "a released queue's finalizer")
            checker.done()
        }
        checker.expect()
        compose_c_set_finalizer(queue, queueContext, runFinalizer)
        if let cGroup {
            checker.expect()
            compose_c_set_finalizer(cGroup, finalizerContext { [self] in
                record.check(checker, after: "a released group's finalizer")
                checker.done()
            }, runFinalizer)
        }
        checker.expect(record.members)
        func submit(_ body: @escaping () -> Void) {
            if let cGroup { compose_c_group_async(cGroup, queue, context(body), runContext) }
            else { compose_c_async(queue, 0, context(body), runContext) }
        }
        func block(_ index: Int) -> () -> Void {
            let capture = Capture(record)
            return { [self] in
                withExtendedLifetime(capture) {}
                if compose_c_get_context(queue) != queueContext {
                    checker.fail("dispatch_get_context on a released queue with work pending gave another context")
                }
                if resubmit && index == 0 { submit(block(-1)) }
                record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
                checker.done()
            }
        }
        for index in 0..<blocks { submit(block(index)) }
        compose_c_release(queue)
        if let cGroup { compose_c_release(cGroup) }
    }
}

/// A finalizer's context: `runFinalizer` runs it once and releases it.
private func finalizerContext(_ body: @escaping () -> Void) -> UnsafeMutableRawPointer { context(body) }

private let runFinalizer: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    Unmanaged<ContextBox>.fromOpaque(raw!).takeRetainedValue().body()
}

/// A closure as a C context: `runContext` runs it and releases it.
private final class ContextBox {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

func context(_ body: @escaping () -> Void) -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(ContextBox(body)).toOpaque()
}

let runContext: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    Unmanaged<ContextBox>.fromOpaque(raw!).takeRetainedValue().body()
}

private final class IterationBox {
    let body: (Int) -> Void
    init(_ body: @escaping (Int) -> Void) { self.body = body }
}

/// A C source's handlers and source (`cSource`).
final class CSourceHandlers: @unchecked Sendable {
    var event: () -> Void = {}
    var cancel: () -> Void = {}
    var source: UnsafeMutableRawPointer!
}

extension Runner {
    /// A C source made by `create` (given the handlers' context and the event and cancel
    /// trampolines), resumed: `event` runs each event and cancels the source when it returns
    /// true; `cancelled` runs in the cancel handler, which then lets the handlers go and,
    /// when `releasedByCancel`, the source (else the caller releases it).
    func cSource(event: @escaping () -> Bool, cancelled: @escaping () -> Void, releasedByCancel: Bool = true,
                 create: (UnsafeMutableRawPointer, compose_function_t, compose_function_t) -> UnsafeMutableRawPointer?)
        -> UnsafeMutableRawPointer {
        let handlers = CSourceHandlers()
        handlers.event = { if event() { compose_c_source_cancel(handlers.source) } }
        handlers.cancel = {
            cancelled()
            if releasedByCancel { compose_c_release(handlers.source) }
            handlers.event = {}   // the handlers captured `handlers`: break the cycle
            handlers.cancel = {}
        }
        handlers.source = create(Unmanaged.passRetained(handlers).toOpaque(), { raw in
            Unmanaged<CSourceHandlers>.fromOpaque(raw!).takeUnretainedValue().event()
        }, { raw in
            Unmanaged<CSourceHandlers>.fromOpaque(raw!).takeRetainedValue().cancel()
        })
        compose_c_source_resume(handlers.source)
        return handlers.source
    }
}

/// Like `SourceState`, for a C timer.
private final class CTimerState: @unchecked Sendable {
    private struct State { var count = 0; var cancelHandlerRan = false }
    private let state = Locked(State())
    let target: Int
    init(ticks: Int) { target = ticks }

    func event(_ checker: Checker, what: String) -> Bool {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): an event handler ran after the cancel handler") }
            state.count += 1
            if state.count > target { checker.fail("\(what): \(state.count) events where \(target) were expected (an event after cancel?)") }
            return state.count == target
        }
    }

    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelHandlerRan = true
            if state.count != target { checker.fail("\(what): cancelled after \(state.count) of \(target) events") }
        }
    }
}
