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
import Synchronization

/// A channel for reading and writing a file descriptor, a file named by a path, or the
/// file of another channel, as the chapter's dispatch I/O channels are: operations run
/// in the order they are submitted, data arrives in `DispatchData` pieces sized by the
/// low- and high-water marks, and the cleanup handler says when the channel has let go of
/// the descriptor.
///
/// A *stream* channel reads and writes at the file's current position (pipes, sockets,
/// terminals, or files read in order); a *random* channel reads and writes at offsets
/// from the position the file had when the channel was made. Pipes, sockets and
/// terminals wait for readiness on the event thread; regular files are read and written
/// with blocking calls on the pool, which is told so and keeps other work running.
public class DispatchIO: DispatchObject, @unchecked Sendable {
    let type: StreamType
    /// Serializes the channel's calls (its "I/O queue").
    let queue = DispatchQueue(label: "conveyor.io.channel")
    private let stateLock = FutexLock()
    // Guarded by stateLock.
    private var storedEntry: IOFileEntry?
    private var storedError: Int32 = 0
    private var holdsEntry = false
    /// The descriptor the channel was made with (-1 for a path channel).
    private var descriptor: Int32
    /// Random channels: the file position when the channel was made.
    private var filePointer: Int64 = 0
    /// Touched only on `queue`.
    private var params = IOParameters()
    private let flags = Atomic<UInt8>(0)
    private static let closedFlag: UInt8 = 1
    private static let stoppedFlag: UInt8 = 2
    /// The kernel thread running this channel's barrier block (0 if none).
    private let barrierThread = Atomic<Int32>(0)
    /// Where barrier blocks run (libdispatch: the channel's target queue; default the
    /// default global queue). Touched only on `queue`.
    private var targetQueue: DispatchQueue?
    /// Barrier queue and group of a channel that has no file entry (it failed to open).
    private lazy var ownBarrierQueue = DispatchQueue(label: "conveyor.io.barrier")
    private let ownBarrierGroup = DispatchGroup()

    init(type: StreamType, descriptor: Int32) {
        self.type = type
        self.descriptor = descriptor
        super.init()
    }

    /// The channel of the static conveniences: it holds no reference on its entry.
    init(convenienceFor entry: IOFileEntry) {
        type = .stream
        descriptor = entry.fd
        storedEntry = entry
        super.init()
    }

    deinit {
        let (entry, holds) = stateLock.withLock { (storedEntry, holdsEntry) }
        if holds, let entry { entry.release() }
    }

    var entry: IOFileEntry? { stateLock.withLock { storedEntry } }
    var isStopped: Bool { flags.load(ordering: .acquiring) & DispatchIO.stoppedFlag != 0 }
    var isClosedOrStopped: Bool { flags.load(ordering: .acquiring) != 0 }

    /// Attaches the channel to its entry (holding one reference) or records the error that
    /// every operation will get; submits the cleanup handler accordingly.
    func attach(entry: IOFileEntry?, error: Int32, filePointer: Int64, queue handlerQueue: DispatchQueue,
                cleanup: IOCleanupHandler) {
        stateLock.withLock {
            storedEntry = error == 0 ? entry : nil
            storedError = error
            holdsEntry = error == 0 && entry != nil
            self.filePointer = filePointer
        }
        if error != 0 {
            entry?.release()
            self.queue.async { handlerQueue.async { cleanup.call(error) } }
        } else if let entry {
            entry.addCleanup { handlerQueue.async { cleanup.call(0) } }
        }
    }

    /// The error a new operation gets: ECANCELED once closed or stopped, else the
    /// channel's (a failed open, a bad fd, a wrong type).
    func channelError() -> Int32 {
        if isClosedOrStopped { return ECANCELED }
        return stateLock.withLock { storedError }
    }

    private var barrierQueue: DispatchQueue { entry?.barrierQueue ?? ownBarrierQueue }

    /// Creates an operation on the channel queue and hands it to its lane through the
    /// barrier queue, or answers at once when there is an error or nothing to do.
    func submitOperation(_ direction: IODirection, offset: Int64, length: Int, data: DispatchData,
                        queue handlerQueue: DispatchQueue, handler: IOHandler) {
        queue.async { [self] in
            let error = channelError()
            if error != 0 || length == 0 {
                let entry = self.entry
                barrierQueue.async {
                    // Ordered on the barrier queue with a stop's or close's release of the
                    // channel's reference: the handler holds the file if it is still there,
                    // so the cleanup handler runs after it returns.
                    let held = entry.flatMap { $0.retainIfLive() ? $0 : nil }
                    handlerQueue.async {
                        let payload: DispatchData? = direction == .read ? (error != 0 ? nil : data) : (error != 0 ? data : nil)
                        handler.call(true, payload, error)
                        held?.release()
                    }
                }
                return
            }
            let entry = self.entry!
            let start = type == .random ? offset + stateLock.withLock({ filePointer }) : offset
            let operation = IOOperation(direction: direction, channel: self, entry: entry, offset: start,
                                        length: length < 0 ? Int.max : length, data: data, params: params,
                                        queue: handlerQueue, handler: handler)
            entry.barrierQueue.async { [self] in
                enqueue(operation)
            }
        }
    }

    /// On the barrier queue: the operation joins its lane unless the channel closed meanwhile.
    func enqueue(_ operation: IOOperation) {
        let error = operation.isConvenience ? 0 : channelError()
        if error != 0 {
            let data = operation.data
            let direction = operation.direction
            let handler = operation.handler
            // A stop sets its flag at once but releases the channel's reference on this
            // queue after this block: hold the file until the final handler returned, or
            // the cleanup handler could run first (issue 25, finding 4). Gone already only
            // when the read came after a close that let go of the file.
            let held = operation.entry.retainIfLive() ? operation.entry : nil
            operation.handlerQueue.async {
                handler.call(true, direction == .read ? nil : data, error)
                held?.release()
            }
            return
        }
        let entry = operation.entry
        entry.retain()
        entry.barrierGroup.enter()
        (operation.direction == .read ? entry.readLane : entry.writeLane).enqueue(operation)
    }

    /// The descriptor of the channel: -1 once closed, and for a path channel until its
    /// file is open (asking from inside a barrier block opens it).
    public var fileDescriptor: Int32 {
        if isClosedOrStopped { return -1 }
        let (entry, fd, error) = stateLock.withLock { (storedEntry, descriptor, storedError) }
        guard let entry, entry.isPathEntry else { return fd }
        if error == 0 && barrierThread.load(ordering: .relaxed) == ThreadInfo.currentID {
            return entry.descriptorOpeningIfNeeded()
        }
        return entry.fd
    }

    /// Runs `execute` once every operation submitted before it has finished, and before
    /// any submitted after it starts. Inside it, `fileDescriptor` is valid (a path
    /// channel's file is opened) and may be used directly.
    @preconcurrency public func barrier(execute: @escaping @Sendable () -> ()) {
        let work = UncheckedBlock(execute)
        queue.async { [self] in
            let barrierQueue = self.barrierQueue
            let group = entry?.barrierGroup ?? ownBarrierGroup
            let target = targetQueue ?? DispatchQueue.global()
            barrierQueue.async { [self] in
                barrierQueue.suspend()
                group.notify(queue: target) { [self] in
                    barrierThread.store(ThreadInfo.currentID, ordering: .relaxed)
                    work.block()
                    barrierThread.store(0, ordering: .relaxed)
                    barrierQueue.resume()
                }
            }
        }
    }

    /// Sets the queue that runs the channel's barrier blocks (by default the default global
    /// queue); it applies to barriers submitted afterwards, as in libdispatch.
    public override func setTarget(queue: DispatchQueue?) {
        self.queue.async { [self] in targetQueue = queue }
    }

    /// Sets the most bytes a read handler is given at once (at least 1); lowers the
    /// low-water mark to it if needed. Applies to operations submitted afterwards.
    public func setLimit(highWater: Int) {
        queue.async { [self] in
            if params.low > highWater { params.low = highWater }
            params.high = highWater != 0 ? highWater : 1
        }
    }

    /// Sets the fewest bytes a handler is given before the operation ends (default 1 MiB);
    /// raises the high-water mark to it if needed.
    public func setLimit(lowWater: Int) {
        queue.async { [self] in
            if params.high < lowWater { params.high = lowWater != 0 ? lowWater : 1 }
            params.low = lowWater
        }
    }

    func setInterval(nanoseconds: UInt64, strict: Bool) {
        queue.async { [self] in
            params.interval = min(nanoseconds, UInt64(Int64.max))
            params.strictInterval = strict
        }
    }

    func closeChannel(stop: Bool) {
        if stop {
            let previous = flags.bitwiseOr(DispatchIO.stoppedFlag, ordering: .acquiringAndReleasing).oldValue
            if previous & DispatchIO.stoppedFlag != 0 { return }
            queue.async { [self] in
                barrierQueue.async { [self] in
                    guard let entry else { return }
                    entry.readLane.cancelOperations(of: self)
                    if entry.writeLane !== entry.readLane { entry.writeLane.cancelOperations(of: self) }
                    if previous & DispatchIO.closedFlag == 0 { dropEntryReference() }
                }
            }
            return
        }
        if isClosedOrStopped { return }
        queue.async { [self] in
            barrierQueue.async { [self] in
                let previous = flags.bitwiseOr(DispatchIO.closedFlag, ordering: .acquiringAndReleasing).oldValue
                if previous == 0 { dropEntryReference() }
            }
        }
    }

    private func dropEntryReference() {
        let entry: IOFileEntry? = stateLock.withLock {
            defer { holdsEntry = false }
            return holdsEntry ? storedEntry : nil
        }
        entry?.release()
    }
}

/// A user's cleanup handler, called once on its queue.
struct IOCleanupHandler: @unchecked Sendable {
    let call: (Int32) -> Void
}
