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

/// What kind of source a `DispatchSource` is (for checks and trap messages).
enum SourceKind: String, Sendable {
    case timer = "timer"
    case userDataAdd = "user-data add"
    case userDataOr = "user-data or"
    case userDataReplace = "user-data replace"
    case signal = "signal"
    case read = "read"
    case write = "write"
    case process = "process"
    case fileSystemObject = "file-system object"
    case memoryPressure = "memory pressure"
}

/// How a new value combines with the pending (not yet delivered) data of a source.
enum SourceMerge: Sendable {
    /// Sum (user-data add, timer fires, signal counts).
    case add
    /// Bitwise union (user-data or, process, file-system and memory-pressure events).
    case or
    /// The new value wins; zero submits nothing (user-data replace).
    case replace
    /// The new value wins and is an event even when zero (read/write: 0 is end of file).
    case set
}

/// Which of a source's three handlers.
enum SourceHandlerKind: Sendable {
    case event, cancel, registration
}

/// One handler of a source: a closure or a work item, with the QoS it asked for.
struct SourceHandler {
    /// What runs.
    enum Body {
        case closure(() -> Void)
        case workItem(DispatchWorkItem)
    }

    let body: Body
    /// The pool band the handler asked for, or nil for the target queue's.
    let band: QoSBand?

    init(_ body: Body, band: QoSBand?) {
        self.body = body
        self.band = band
    }

    /// Runs the handler on the calling thread.
    func run() {
        switch body {
        case .closure(let closure): closure()
        case .workItem(let item): item.perform()
        }
    }
}

/// The life-cycle flags of a source, guarded by its lock.
struct SourceState {
    /// Created, not yet activated.
    var isInactive = true
    /// Nested `suspend()` calls not yet resumed.
    var suspendCount: UInt32 = 0
    /// `activate()` is starting the monitor; deliveries wait for it.
    var isInstalling = false
    /// The monitor watches the kernel (between activation and cancel/release).
    var isInstalled = false
    /// `cancel()` was called.
    var isCancelRequested = false
    /// After `cancel()`, the monitor stopped for good: the cancel handler may run.
    var isTornDown = false
    /// The cancel handler was taken for running; the source is finished.
    var isCancelDelivered = false
    /// The delivery job is on the target queue or running.
    var isScheduled = false
    /// The registration handler is due.
    var needsRegistration = false
    /// An event was merged and not yet delivered.
    var hasPendingEvent = false
}

/// What watches the kernel for one source: a timer, an fd registration, a share of the
/// signalfd, of the inotify instance or of the PSI triggers. A monitor reports events by
/// merging them into its source (`DispatchSource.merge`), from the event thread.
///
/// `install` and `uninstall` are called once each at most, serialized by the source's
/// setup lock (or from its deinit), never under its state lock.
protocol SourceMonitor: AnyObject, Sendable {
    /// Starts watching for `source` (at activation).
    func install(for source: DispatchSource)
    /// Stops watching. When it returns, no callback of this monitor runs or will run
    /// (unless called from such a callback on the event thread, which then finishes).
    func uninstall(for source: DispatchSource)
    /// The event handler just ran: re-arm a one-shot registration. Not under the lock.
    func eventHandlerDidRun(for source: DispatchSource)
    /// The source's last suspension ended; called with its state lock held, on an active
    /// source, possibly while `install` still runs on another thread (a resume racing
    /// activation): the monitor checks its own installed state.
    func sourceDidResumeLocked(_ source: DispatchSource)
}

extension SourceMonitor {
    func eventHandlerDidRun(for source: DispatchSource) {}
    func sourceDidResumeLocked(_ source: DispatchSource) {}
}
