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

import CConveyor
import CConveyorMainThreadBridge
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs the main queue on the main thread, whoever runs that thread:
/// - Conveyor's `dispatchMain()` (and an `async` main, through the concurrency runtime's
///   hook): `MainThreadLoop` serves this queue and libdispatch's main queue;
/// - Foundation's `RunLoop` (XCTest waits, `RunLoop.main.run`): it drains the toolchain's
///   libdispatch main queue, so each scheduled drain is also posted there;
/// - a host event loop: it watches `mainQueueEventDescriptor` and calls `drainMainQueue()`.
/// Whichever comes first runs the drain; the others find nothing pending.
final class MainQueueRunner: @unchecked Sendable {
    static let shared = MainQueueRunner()

    let queue = DispatchSerialQueue(specialLabel: "com.apple.main-thread", kind: .main, band: .default)
    /// Whether a drain was scheduled and not yet run.
    private let pending = Atomic<Bool>(false)
    /// The eventfd for host loops and `MainThreadLoop`, created on first request (-1 until then).
    private let eventDescriptor = Atomic<Int32>(-1)
    /// Set while `MainThreadLoop` serves the main thread: nothing needs posting to libdispatch.
    let servedByConveyor = Atomic<Bool>(false)
    /// Whether a drain request sits on libdispatch's main queue, not yet run (at most one).
    private let forwardOutstanding = Atomic<Bool>(false)

    /// Items ever put on the main queue, and ever taken off it by a drain: their
    /// difference when a drain begins is what that drain runs at most (its snapshot).
    /// `popped` is touched only by the drain, which runs on one thread at a time.
    private let enqueuedItems = Atomic<Int>(0)
    private var poppedItems = 0

    private init() {
        cnv_capi_note_state_made()   // the drop-in library forwards to a program's runtime only before this
    }

    /// An item is about to be pushed onto the main queue.
    @inline(__always)
    func noteEnqueued() { enqueuedItems.wrappingAdd(1, ordering: .relaxed) }

    /// The drain took an item off the main queue.
    @inline(__always)
    func notePopped() { poppedItems &+= 1 }

    /// How many items a drain that begins now may run: those counted in so far. One whose
    /// push is still under way may be among them; the drain then finds the list empty and
    /// ends, and that push wakes the queue again.
    func itemsAtDrainStart() -> Int { enqueuedItems.load(ordering: .relaxed) &- poppedItems }

    /// The main queue has work: wake whoever serves the main thread.
    func signal() {
        // Pairs with `runForwardedDrain`: store `pending`, then look at `forwardOutstanding`
        // (both sequentially consistent). Either the forwarded drain, which clears the flag
        // before it reads `pending`, sees this drain, or this call sees the flag clear and
        // posts a new request; the drain cannot be left with no request outstanding.
        pending.store(true, ordering: .sequentiallyConsistent)
        let fd = eventDescriptor.load(ordering: .acquiring)
        if fd >= 0 { _ = cnv_eventfd_signal(fd) }
        if !servedByConveyor.load(ordering: .sequentiallyConsistent) { forwardToLibdispatch() }
    }

    /// Posts one drain request to libdispatch's main queue unless one is outstanding.
    private func forwardToLibdispatch() {
        guard !forwardOutstanding.load(ordering: .sequentiallyConsistent),
              forwardOutstanding.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        if cnv_libdispatch_main_queue_async(nil, { _ in MainQueueRunner.shared.runForwardedDrain() }) != 0 {
            forwardOutstanding.store(false, ordering: .sequentiallyConsistent)
        }
    }

    /// A drain request posted to libdispatch's main queue runs (on the main thread).
    private func runForwardedDrain() {
        forwardOutstanding.store(false, ordering: .sequentiallyConsistent)   // pairs with `signal`
        drainIfScheduled()
    }

    /// Runs the scheduled drain, if any. Main thread only.
    func drainIfScheduled() {
        if pending.exchange(false, ordering: .sequentiallyConsistent) {
            queue.drainScheduled()
        }
    }

    /// The eventfd a host loop can poll.
    func hostDescriptor() -> Int32 {
        let existing = eventDescriptor.load(ordering: .acquiring)
        if existing >= 0 { return existing }
        let fd = SystemCall.check(cnv_eventfd(0, 1), "eventfd for the main queue")
        let (stored, winner) = eventDescriptor.compareExchange(expected: -1, desired: fd, ordering: .acquiringAndReleasing)
        if !stored {
            _ = close(fd)
            return winner
        }
        if pending.load(ordering: .acquiring) { _ = cnv_eventfd_signal(fd) }
        return fd
    }
}

/// Serves the main queue on the main thread and never returns. Call it at the end of a
/// program's main code; a program ends by calling `exit` from some task.
///
/// It also runs MainActor jobs (they are on the main queue) and the work that code built
/// on the toolchain's Dispatch put on that library's main queue. Calling it off the main
/// thread traps.
public func dispatchMain() -> Never {
    ensure(ThreadInfo.isMainThread, "Conveyor: dispatchMain() must be called on the main thread")
    MainThreadLoop.serveForever()
}

extension DispatchQueue {
    /// A file descriptor that becomes readable when the main queue has work, for programs
    /// whose main thread runs its own event loop (epoll, poll) instead of `dispatchMain()`.
    /// When it is readable, call `drainMainQueue()` on the main thread.
    public static var mainQueueEventDescriptor: Int32 {
        MainQueueRunner.shared.hostDescriptor()
    }

    /// Runs the main queue's pending tasks on the calling thread, which must be the main
    /// thread; returns when the queue has nothing more to start now (or after a batch, if
    /// work keeps coming: the descriptor is then readable again).
    public static func drainMainQueue() {
        ensure(ThreadInfo.isMainThread, "Conveyor: drainMainQueue() must be called on the main thread")
        let runner = MainQueueRunner.shared
        let fd = runner.hostDescriptor()
        _ = cnv_eventfd_drain(fd)
        runner.drainIfScheduled()
    }
}
