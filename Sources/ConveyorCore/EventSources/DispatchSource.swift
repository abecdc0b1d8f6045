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

import Synchronization

/// An object that watches for a system event — a timer, a signal, a file descriptor
/// ready to read or write, a process exit, a change to a file, memory pressure — or for
/// data the program merges in itself, and runs an event handler on a target queue when
/// it happens. Events that arrive while the handler is pending or running are merged
/// (added, ORed or replaced) into `data`, so a busy handler sees one call with the sum.
///
/// Sources start inactive: set the handlers, then `activate()` (or `resume()`). Handlers
/// of one source never run at the same time, even on a concurrent queue. `cancel()`
/// stops delivery; the cancel handler then runs once, after the last event handler, and
/// only then may a watched file descriptor be closed. Handlers are released after the
/// cancel handler ran, which breaks the usual cycle of a handler capturing its source.
///
/// Releasing the last reference to an active source stops it silently (no cancel
/// handler), as libdispatch does; releasing one that is inactive or suspended traps.
public class DispatchSource: DispatchObject, @unchecked Sendable, DispatchSourceProtocol,
    DispatchSourceRead, DispatchSourceSignal, DispatchSourceTimer, DispatchSourceUserDataAdd,
    DispatchSourceUserDataOr, DispatchSourceUserDataReplace, DispatchSourceWrite
{
    let kind: SourceKind
    let mergeRule: SourceMerge
    /// What `handle` reports.
    let handleValue: UInt
    /// What `mask` reports.
    let maskValue: UInt
    /// What watches the kernel; nil for user-data sources.
    let monitor: (any SourceMonitor)?
    /// Guards everything marked "guarded" below. Never held while user code or a
    /// blocking runtime call (`cancelTimer`, `unregister`) runs; held while the delivery
    /// job is enqueued (`scheduleDeliveryLocked`, which may start a pool thread).
    let lock = FutexLock()
    /// Serializes activation, cancellation and timer scheduling, which install or remove
    /// monitors (and may wait for the event thread). Event-thread callbacks never take it.
    let setupLock = FutexLock()
    /// The data of the current (or last) delivery; `data` reads it.
    let deliveredData = Atomic<UInt>(0)
    /// Set by `cancel()`; `isCancelled` reads it.
    let cancelled = Atomic<Bool>(false)
    /// The one job that runs this source's handlers; on the target queue at most once.
    private(set) var deliveryJob: SourceDeliveryJob!

    // MARK: guarded by `lock`

    var state = SourceState()
    var targetQueue: DispatchQueue
    var pendingData: UInt = 0
    var eventHandler: SourceHandler?
    var cancelHandler: SourceHandler?
    var registrationHandler: SourceHandler?

    init(kind: SourceKind, merge: SourceMerge, handle: UInt = 0, mask: UInt = 0,
         monitor: (any SourceMonitor)? = nil, queue: DispatchQueue?) {
        self.kind = kind
        self.mergeRule = merge
        self.handleValue = handle
        self.maskValue = mask
        self.monitor = monitor
        self.targetQueue = queue ?? DispatchQueue.global()
        super.init()
        deliveryJob = SourceDeliveryJob(source: self)
    }

    deinit {
        // Nothing else can reach the source now: a delivery in flight holds a reference.
        if state.isInactive {
            fatalError("Conveyor: release of an inactive dispatch source (\(kind.rawValue)): activate() or resume() it before its last reference goes")
        }
        if state.suspendCount > 0 {
            fatalError("Conveyor: release of a suspended dispatch source (\(kind.rawValue)): resume() it before its last reference goes")
        }
        if state.isInstalled, let monitor {
            state.isInstalled = false
            monitor.uninstall(for: self)
        }
    }

    // MARK: life cycle

    /// Activates the source: its monitor starts watching, the registration handler runs,
    /// then events are delivered. Activating an active source does nothing.
    public override func activate() {
        setupLock.lock()
        defer { setupLock.unlock() }
        lock.lock()
        guard state.isInactive else {
            lock.unlock()
            return
        }
        state.isInactive = false
        let install = monitor != nil && !state.isCancelRequested
        state.isInstalling = install
        if !state.isCancelRequested && registrationHandler != nil { state.needsRegistration = true }
        if !install { scheduleDeliveryLocked() }
        lock.unlock()
        guard install, let monitor else { return }

        monitor.install(for: self)
        #if DEBUG
        Self.afterMonitorInstall?(self)
        #endif
        lock.lock()
        state.isInstalling = false
        state.isInstalled = true
        scheduleDeliveryLocked()
        lock.unlock()
    }

    #if DEBUG
    /// Debug builds only: called by `activate` between the monitor's installation and the
    /// source's `isInstalled`, so that a test can land a call in that window every time.
    /// Set only in a test's child process, before its first source is activated.
    nonisolated(unsafe) static var afterMonitorInstall: ((DispatchSource) -> Void)?

    /// Debug builds only: called just before the delivery job is put on the target queue,
    /// with the source's lock held, so that a test can try to land a `cancel()` and a
    /// `sync` before the job is queued (which the lock now prevents: the `cancel()` waits
    /// for it). Set only in a test's child process.
    nonisolated(unsafe) static var beforeDeliveryEnqueue: ((DispatchSource) -> Void)?
    #endif

    /// Suspends the delivery of events; they are merged meanwhile. Calls nest.
    public override func suspend() {
        lock.lock()
        state.suspendCount += 1
        lock.unlock()
    }

    /// Undoes one `suspend()`; merged events are then delivered. On an inactive source
    /// that is not suspended it activates the source. Resuming more often than
    /// suspended traps.
    public override func resume() {
        lock.lock()
        if state.suspendCount == 0 {
            let inactive = state.isInactive
            lock.unlock()
            if inactive { return activate() }
            fatalError("Conveyor: over-resume of a dispatch source (\(kind.rawValue)): resume() called more often than suspend()")
        }
        state.suspendCount -= 1
        // Not only once `isInstalled`: a resume racing `activate` can come while the
        // monitor installs (`isInstalling`), after a timer fired and parked there. The
        // monitor knows its own state (a timer re-arms only if installed and parked);
        // read as `isInstalled`, that timer never fired again.
        if state.suspendCount == 0 && !state.isInactive {
            monitor?.sourceDidResumeLocked(self)
        }
        scheduleDeliveryLocked()
        lock.unlock()
    }

    /// Sets the queue the handlers run on (nil: the default global queue). Best before
    /// activation; on an active source (which libdispatch allows, as deprecated) a
    /// delivery already running or on its way finishes on the old queue, with the rest of
    /// its pass (the event pending then, a cancellation), as libdispatch's does; later ones
    /// go to the new one. Handlers still never overlap (one delivery job at a time).
    public override func setTarget(queue: DispatchQueue?) {
        lock.lock()
        let previous = targetQueue
        targetQueue = queue ?? DispatchQueue.global()
        lock.unlock()
        withExtendedLifetime(previous) {}
    }

    /// Cancels: stops the monitor (when this returns it no longer watches), drops events
    /// not yet delivered, and lets the cancel handler run once no event handler runs and
    /// the source is active and not suspended.
    func cancelSource() {
        setupLock.lock()
        defer { setupLock.unlock() }
        lock.lock()
        guard !state.isCancelRequested else {
            lock.unlock()
            return
        }
        state.isCancelRequested = true
        cancelled.store(true, ordering: .releasing)
        pendingData = 0
        state.hasPendingEvent = false
        state.needsRegistration = false
        let uninstall = state.isInstalled
        state.isInstalled = false
        if !uninstall { state.isTornDown = true }
        scheduleDeliveryLocked()
        lock.unlock()
        guard uninstall, let monitor else { return }

        monitor.uninstall(for: self)
        lock.lock()
        state.isTornDown = true
        scheduleDeliveryLocked()
        lock.unlock()
    }

    /// Replaces a handler. Event and cancel handlers may change at any time (the change
    /// applies to the next delivery). A registration handler set after activation (which
    /// libdispatch allows, as deprecated) runs once, before the next event handler, unless
    /// the source is cancelled. Once the cancel handler has run, new handlers are dropped:
    /// they could never run.
    func setHandler(_ which: SourceHandlerKind, _ handler: SourceHandler?) {
        var previous: SourceHandler?
        lock.lock()
        if state.isCancelDelivered {
            lock.unlock()
            withExtendedLifetime(handler) {}
            return
        }
        switch which {
        case .event:
            previous = eventHandler
            eventHandler = handler
        case .cancel:
            previous = cancelHandler
            cancelHandler = handler
        case .registration:
            previous = registrationHandler
            registrationHandler = handler
            if !state.isInactive && !state.isCancelRequested {
                state.needsRegistration = handler != nil
                scheduleDeliveryLocked()
            }
        }
        lock.unlock()
        withExtendedLifetime(previous) {}  // released outside the lock: it may free a source
    }
}
