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

/// The type of the closures a dispatch source runs: its event, cancel and registration
/// handlers.
@preconcurrency public typealias DispatchSourceHandler = @Sendable () -> Void

/// What every dispatch source offers: handlers for its events, its cancellation and its
/// registration, the life-cycle calls, and the values that describe what it watches.
///
/// Only `DispatchSource` (made by its `make…Source` functions) conforms; the
/// implementations below forward to it.
///
/// Sendable (the toolchain's Dispatch leaves it out): a source is safe to use from any
/// thread, and its handlers are `@Sendable` closures, which capture the source they
/// belong to as often as not (`source.setEventHandler { use(source.data) }`).
public protocol DispatchSourceProtocol: Sendable {
    /// Sets the closure that runs on the target queue each time events were merged into the
    /// concreteSource. Inside it, `data` tells what happened since the last call.
    @preconcurrency func setEventHandler(qos: DispatchQoS, flags: DispatchWorkItemFlags, handler: DispatchSourceHandler?)

    /// Sets a work item to perform on the target queue for each batch of events.
    func setEventHandler(handler: DispatchWorkItem)

    /// Sets the closure that runs once on the target queue after the source was cancelled
    /// and its last event handler returned; only then may the watched fd be closed.
    @preconcurrency func setCancelHandler(qos: DispatchQoS, flags: DispatchWorkItemFlags, handler: DispatchSourceHandler?)

    /// Sets a work item to perform once the source is cancelled.
    func setCancelHandler(handler: DispatchWorkItem)

    /// Sets the closure that runs once on the target queue when the source, activated,
    /// starts watching — before any event handler.
    @preconcurrency func setRegistrationHandler(qos: DispatchQoS, flags: DispatchWorkItemFlags, handler: DispatchSourceHandler?)

    /// Sets a work item to perform when the source starts watching.
    func setRegistrationHandler(handler: DispatchWorkItem)

    /// Stops the source for good: no event handler starts afterwards (one already running
    /// finishes), then the cancel handler runs.
    func cancel()

    /// Undoes one `suspend()`; on an inactive source that was never suspended, activates it.
    func resume()

    /// Stops event handlers from starting until the matching `resume()`. Events that
    /// arrive meanwhile are merged and delivered on resumption.
    func suspend()

    /// What the source watches: a file descriptor, signal number or process id (0 for
    /// timers, user-data and memory-pressure sources).
    var handle: UInt { get }

    /// The events the source was asked to watch for (timer flags for a timer; 0 when the
    /// type has none).
    var mask: UInt { get }

    /// What the current (or last) event handler was told: merged user data, the number of
    /// timer fires or signals, the bytes available to read or write, or event flags.
    var data: UInt { get }

    /// Whether `cancel()` was called.
    var isCancelled: Bool { get }
}

extension DispatchSourceProtocol {
    /// The concrete source behind the protocol.
    var concreteSource: DispatchSource { self as! DispatchSource }

    /// Sets the closure that runs on the target queue each time events were merged into the
    /// source; `nil` removes it. Allowed after activation: the change applies from the next
    /// event on.
    @preconcurrency public func setEventHandler(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], handler: DispatchSourceHandler?) {
        concreteSource.setHandler(.event, handler.map { SourceHandler(.closure($0), band: flags.band(for: qos)) })
    }

    /// Sets a work item to perform on the target queue for each batch of events.
    public func setEventHandler(handler: DispatchWorkItem) {
        concreteSource.setHandler(.event, SourceHandler(.workItem(handler), band: handler.band))
    }

    /// Sets the closure that runs once after the source was cancelled and its last event
    /// handler returned.
    @preconcurrency public func setCancelHandler(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], handler: DispatchSourceHandler?) {
        concreteSource.setHandler(.cancel, handler.map { SourceHandler(.closure($0), band: flags.band(for: qos)) })
    }

    /// Sets a work item to perform once the source is cancelled.
    public func setCancelHandler(handler: DispatchWorkItem) {
        concreteSource.setHandler(.cancel, SourceHandler(.workItem(handler), band: handler.band))
    }

    /// Sets the closure that runs once when the source starts watching, before its first
    /// event handler. Set after activation (libdispatch allows it, as deprecated), it runs
    /// once before the next event handler, unless the source is cancelled.
    @preconcurrency public func setRegistrationHandler(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], handler: DispatchSourceHandler?) {
        concreteSource.setHandler(.registration, handler.map { SourceHandler(.closure($0), band: flags.band(for: qos)) })
    }

    /// Sets a work item to perform when the source starts watching (see the closure form).
    public func setRegistrationHandler(handler: DispatchWorkItem) {
        concreteSource.setHandler(.registration, SourceHandler(.workItem(handler), band: handler.band))
    }

    /// Activates the source: it starts watching and delivering. Sources start inactive.
    public func activate() { concreteSource.activate() }

    /// Cancels the source (see `DispatchSourceProtocol.cancel()`).
    public func cancel() { concreteSource.cancelSource() }

    /// Undoes one `suspend()`, or activates an inactive source that was never suspended.
    public func resume() { concreteSource.resume() }

    /// Stops event handlers from starting until the matching `resume()`.
    public func suspend() { concreteSource.suspend() }

    /// What the source watches (fd, signal number, process id), or 0.
    public var handle: UInt { concreteSource.handleValue }

    /// The events the source watches for, or its timer flags.
    public var mask: UInt { concreteSource.maskValue }

    /// The data of the current (or last) event delivery.
    public var data: UInt { concreteSource.deliveredData.load(ordering: .acquiring) }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { concreteSource.cancelled.load(ordering: .acquiring) }
}

/// A source that watches a file descriptor for bytes to read. Its `data` is an estimate
/// of the bytes available (0 at end of file), its `handle` the fd.
public protocol DispatchSourceRead: DispatchSourceProtocol {}

/// A source that watches a file descriptor for room to write. Its `data` is an estimate
/// of the bytes that can be written without blocking, its `handle` the fd.
public protocol DispatchSourceWrite: DispatchSourceProtocol {}

/// A source that counts deliveries of a signal to the process. Its `data` is the number
/// of signals since the last handler, its `handle` the signal number.
public protocol DispatchSourceSignal: DispatchSourceProtocol {}
