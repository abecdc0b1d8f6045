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

/// A condition about the queue the calling code runs on, checked by `dispatchPrecondition`.
public enum DispatchPredicate: Sendable {
    /// The code runs on the queue (or on a queue that targets it).
    case onQueue(DispatchQueue)
    /// The code runs on the queue with nothing else of the queue running (serial queue,
    /// or a barrier on a concurrent queue).
    case onQueueAsBarrier(DispatchQueue)
    /// The code does not run on the queue.
    case notOnQueue(DispatchQueue)
}

/// Traps unless `condition` holds for the calling code, naming the queue.
public func dispatchPrecondition(
    condition: @autoclosure () -> DispatchPredicate, file: StaticString = #fileID, line: UInt = #line
) {
    switch condition() {
    case .onQueue(let queue):
        if !isRunning(on: queue, exclusively: false) {
            fatalError("Conveyor: dispatchPrecondition failed: not running on queue '\(queue.label)'", file: file, line: line)
        }
    case .onQueueAsBarrier(let queue):
        if !isRunning(on: queue, exclusively: true) {
            fatalError("Conveyor: dispatchPrecondition failed: not running on queue '\(queue.label)' as a barrier", file: file, line: line)
        }
    case .notOnQueue(let queue):
        if isRunning(on: queue, exclusively: false) {
            fatalError("Conveyor: dispatchPrecondition failed: running on queue '\(queue.label)'", file: file, line: line)
        }
    }
}

/// Traps unless `condition` holds for the calling code, naming the queue.
///
/// The same check as `dispatchPrecondition(condition:file:line:)`. This overload without
/// defaulted arguments exists for files that see the toolchain's Dispatch as well (through
/// Foundation or XCTest): a call such as `dispatchPrecondition(condition: .onQueue(.main))`
/// would otherwise match Dispatch's function as well as Conveyor's and be ambiguous; the
/// compiler prefers the overload that needs no default arguments.
@_transparent
public func dispatchPrecondition(condition: @autoclosure () -> DispatchPredicate) {
    dispatchPrecondition(condition: condition(), file: #fileID, line: #line)
}

/// Whether the calling thread runs work of `queue` now (through any frame or its targets).
func isRunning(on queue: DispatchQueue, exclusively: Bool) -> Bool {
    // The main thread owns the main queue for the life of the process, as libdispatch's
    // main queue is bound to it: on that thread the code runs "on the main queue" even
    // outside any main-queue block (before `dispatchMain()`, inside a `sync` to another
    // queue). Conveyor runs the main queue's work on no other thread.
    if queue.kind == .main { return ThreadInfo.isMainThread }
    var found = false
    DrainFrame.forEach { framed, exclusive in
        if exclusively {
            if framed === queue && exclusive { found = true }
            return !found
        }
        found = chain(from: framed, contains: queue)
        return !found
    }
    if found { return true }
    // Below every frame of the main thread lies the main queue, to which libdispatch binds
    // that thread: its chain (the main queue's target, the default overcommitting global
    // queue) is the thread's too.
    if !exclusively && ThreadInfo.isMainThread && chain(from: DispatchQueue.main, contains: queue) { return true }
    // The walk above followed every frame's targets up to its global queue. Work
    // submitted straight to a global queue runs with no frame: the band of the queue it
    // was submitted to (`Job.rootBand`, not its own QoS) tells which.
    if queue.kind == .root, !exclusively, DrainFrame.innermostQueue == nil, let worker = Worker.current {
        return worker.runningRootBand == queue.band && worker.runsOvercommit.load(ordering: .relaxed) == queue.isOvercommitRoot
    }
    return false
}

/// Whether `queue` is `start` or on its chain of targets, as `dispatchPrecondition` sees it
/// (`identityTarget`).
private func chain(from start: DispatchQueue, contains queue: DispatchQueue) -> Bool {
    var level: DispatchQueue? = start
    while let current = level {
        if current === queue { return true }
        level = current.identityTarget
    }
    return false
}
