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

// Async forms of Dispatch's waits, beyond the toolchain's Dispatch: each suspends the
// calling task instead of blocking a thread of the cooperative pool, and ends early,
// throwing `CancellationError`, when the task is cancelled.

extension DispatchGroup {
    /// Suspends until every task in the group has left (what `wait()` blocks for), without
    /// blocking a thread. Throws `CancellationError` if the calling task is cancelled first.
    public func waitUntilEmpty() async throws(CancellationError) {
        try await OneShotResumption.suspend { resume in
            notify(queue: .global()) { resume() }
        }
    }
}

extension DispatchWorkItem {
    /// Suspends until the item has run, or was cancelled and skipped (what `wait()` blocks
    /// for), without blocking a thread. Throws `CancellationError` if the calling task is
    /// cancelled first.
    public func waitUntilFinished() async throws(CancellationError) {
        try await OneShotResumption.suspend { resume in
            notify(queue: .global()) { resume() }
        }
    }
}

extension DispatchSourceProtocol {
    /// The source's events as an asynchronous sequence: each element is the source's `data`
    /// when its event handler runs (merged as the source type merges it). The sequence sets
    /// the source's event and cancellation handlers; it ends when the source is cancelled,
    /// and cancels the source when iteration stops (the consuming task is cancelled or
    /// leaves the loop). Activate (or resume) the source to start delivery.
    public func events(
        bufferingPolicy: AsyncStream<UInt>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<UInt> {
        makeEventStream(of: SourceReference(source: self), bufferingPolicy: bufferingPolicy)
    }
}

/// A source handed to handlers that run on other threads (sources are thread-safe).
private struct SourceReference: @unchecked Sendable {
    let source: any DispatchSourceProtocol
}

private func makeEventStream(
    of reference: SourceReference, bufferingPolicy: AsyncStream<UInt>.Continuation.BufferingPolicy
) -> AsyncStream<UInt> {
    let (stream, continuation) = AsyncStream.makeStream(of: UInt.self, bufferingPolicy: bufferingPolicy)
    reference.source.setEventHandler(handler: DispatchWorkItem { continuation.yield(reference.source.data) })
    reference.source.setCancelHandler(handler: DispatchWorkItem { continuation.finish() })
    continuation.onTermination = { _ in reference.source.cancel() }
    return stream
}

/// A continuation that is resumed exactly once: by the awaited event, or by the task's
/// cancellation, whichever comes first.
final class OneShotResumption: @unchecked Sendable {
    private enum State {
        /// Before the task has suspended.
        case starting
        /// Cancelled before the task suspended: it resumes at once when it does.
        case cancelledEarly
        case waiting(CheckedContinuation<Void, any Error>)
        case resumed
    }
    private let lock = FutexLock()
    private var state = State.starting   // guarded by lock

    private init() {}

    /// Suspends the task; `register` arranges for its argument to be called once the awaited
    /// event happens (it may be called at once).
    static func suspend(_ register: (@escaping @Sendable () -> Void) -> Void) async throws(CancellationError) {
        let resumption = OneShotResumption()
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    if resumption.wait(with: continuation) {
                        register { resumption.resume(cancelled: false) }
                    }
                }
            } onCancel: {
                resumption.resume(cancelled: true)
            }
        } catch {
            throw CancellationError()
        }
    }

    /// Stores the continuation; returns false (after resuming it) if cancelled already.
    private func wait(with continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let cancelled = lock.withLock { () -> Bool in
            if case .cancelledEarly = state {
                state = .resumed
                return true
            }
            state = .waiting(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// Resumes the task unless it was resumed already. A cancellation that comes before the
    /// task has suspended is remembered, and `wait(with:)` resumes at once.
    private func resume(cancelled: Bool) {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            switch state {
            case .waiting(let continuation):
                state = .resumed
                return continuation
            case .starting:
                if cancelled { state = .cancelledEarly }
                return nil
            case .cancelledEarly, .resumed:
                return nil
            }
        }
        guard let continuation else { return }
        if cancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
    }
}
