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

#if canImport(Glibc)
import Glibc
#endif

/// Runs the operations of one file in one direction, in the order they were submitted,
/// one system call at a time, on a serial queue. A regular file has one lane for both
/// directions and makes blocking calls that the pool is told about; other descriptors
/// have a read lane and a write lane that wait for readiness on the event thread.
final class IOLane: @unchecked Sendable {
    let queue = DispatchQueue(label: "conveyor.io.lane")
    private let events: EpollEvents
    private let isDisk: Bool
    // Touched only on `queue` (and by `stopWatching`, once no operation is left).
    private var pending: [IOOperation] = []
    private var head = 0
    private var active: IOOperation?
    private var registration: RegistrationID?
    private var isWaiting = false

    /// System calls per turn on the queue before it yields to other work.
    private static let stepsPerTurn = 16
    /// Would-block results a turn that moved bytes retries (after `sched_yield`).
    private static let retriesBeforeWaiting = 4

    init(events: EpollEvents, isDisk: Bool) {
        self.events = events
        self.isDisk = isDisk
    }

    /// Adds an operation (from the barrier queue).
    func enqueue(_ operation: IOOperation) {
        queue.async { [self] in
            let error = operation.currentError()
            if error != 0 {
                operation.err = error
                operation.finish()
                return
            }
            operation.startIntervalTimer(on: queue)
            operation.resumeLane = { [weak self] in
                guard let self else { return }
                self.queue.async { self.isWaiting = false; self.pump() }
            }
            pending.append(operation)
            if !isWaiting { pump() }
        }
    }

    /// Finishes the operations of `channel` (all of them when nil) with the error they now
    /// see (ECANCELED after a stop).
    func cancelOperations(of channel: DispatchIO?, error: Int32 = ECANCELED) {
        queue.async { [self] in
            cancelLocked(channel, error: error)
            if !isWaiting { pump() }
        }
    }

    private func cancelLocked(_ channel: DispatchIO?, error: Int32) {
        if let operation = active, channel == nil || operation.channel === channel {
            active = nil
            isWaiting = false
            operation.err = operation.err != 0 ? operation.err : error
            operation.finish()
        }
        var kept: [IOOperation] = []
        for operation in pending[head...] {
            if channel == nil || operation.channel === channel {
                operation.err = error
                operation.finish()
            } else {
                kept.append(operation)
            }
        }
        pending = kept
        head = 0
    }

    private func next() -> IOOperation? {
        if let active { return active }
        guard head < pending.count else {
            pending.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let operation = pending[head]
        head += 1
        active = operation
        return operation
    }

    private func complete(_ operation: IOOperation) {
        if active === operation { active = nil }
        operation.finish()
    }

    /// Runs system calls until the lane is empty, must wait, or has had its turn.
    private func pump() {
        var retries = IOLane.retriesBeforeWaiting
        var movedBytes = false
        for _ in 0..<IOLane.stepsPerTurn {
            guard let operation = next() else { return }
            let error = operation.currentError()
            if error != 0 {
                operation.err = error
                complete(operation)
                continue
            }
            let result = isDisk ? withBlockingHint { operation.perform() } : operation.perform()
            switch result {
            case .deliver:
                movedBytes = true
                operation.deliver([])
                if operation.shouldPauseForHandler() {
                    isWaiting = true
                    return
                }
            case .deliverAndComplete:
                operation.deliver([.deliver, .noEmpty])
                complete(operation)
            case .complete:
                complete(operation)
            case .completeResume:
                complete(operation)
            case .resume:
                // A busy pipe refills as soon as its writer runs: yield and try again a few
                // times before paying for a readiness round trip through the event thread.
                if movedBytes && retries > 0 {
                    retries -= 1
                    sched_yield()
                    continue
                }
                waitForReadiness(operation.entry.fd)
                return
            case .canceled:
                cancelLocked(operation.channel, error: ECANCELED)
            case .descriptorError:
                cancelLocked(nil, error: operation.err)
            }
        }
        queue.async { [self] in if !isWaiting { pump() } }
    }

    /// Asks the event thread to pump again when the fd is ready.
    private func waitForReadiness(_ fd: Int32) {
        isWaiting = true
        let wanted: EpollEvents = [events, .oneShot]
        do {
            if let registration {
                try EventLoop.shared.modify(registration, events: wanted)
            } else {
                registration = try EventLoop.shared.register(fd: fd, events: wanted) { [weak self] _ in
                    guard let self else { return }
                    self.queue.async { self.isWaiting = false; self.pump() }
                }
            }
        } catch where error.errno == EPERM {
            // epoll cannot watch this fd (some devices): it never blocks, so just try again.
            queue.async { [self] in isWaiting = false; pump() }
        } catch {
            isWaiting = false
            if let operation = active {
                operation.err = error.errno
                complete(operation)
            }
            queue.async { [self] in if !isWaiting { pump() } }
        }
    }

    /// Stops watching the fd (the entry is going; no operation is left).
    func stopWatching() {
        if let registration {
            EventLoop.shared.unregister(registration)
            self.registration = nil
        }
    }
}
