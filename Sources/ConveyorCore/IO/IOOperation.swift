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

/// The size of one read or write system call, and the default low-water mark (1 MiB, as
/// libdispatch uses on Linux).
let ioChunkSize = 1024 * 1024

/// A channel's limits and delivery interval, copied into each operation when it is
/// created (so `setLimit` affects only later operations, as in libdispatch).
struct IOParameters {
    var low = ioChunkSize
    var high = Int.max
    var interval: UInt64 = 0
    var strictInterval = false
}

/// Which way an operation moves bytes.
enum IODirection { case read, write }

/// What one system call of an operation came to.
enum IOStepResult {
    /// Bytes moved; more to do.
    case deliver
    /// End of file: deliver what is pending (never empty), then complete.
    case deliverAndComplete
    /// All bytes moved, or an error other than the ones below.
    case complete
    /// A convenience read that has data and would block: complete it.
    case completeResume
    /// Would block: wait for readiness.
    case resume
    /// The channel was stopped.
    case canceled
    /// The descriptor is bad: every operation on it fails.
    case descriptorError
}

/// How to deliver (libdispatch's operation flags).
struct IODeliverFlags: OptionSet {
    let rawValue: UInt8
    static let deliver = IODeliverFlags(rawValue: 1)
    static let done = IODeliverFlags(rawValue: 2)
    static let noEmpty = IODeliverFlags(rawValue: 4)
}

/// The non-Sendable handler a user gave, called only on the operation's serial queue.
struct IOHandler: @unchecked Sendable {
    let call: (Bool, DispatchData?, Int32) -> Void
}

/// One read or write on a channel. Its state is touched only on its lane's queue; its
/// handler runs on its own serial queue (targeting the user's), so calls arrive in order
/// even on a concurrent queue.
final class IOOperation: @unchecked Sendable {
    let direction: IODirection
    let channel: DispatchIO
    let entry: IOFileEntry
    /// Absolute file offset for random channels.
    let offset: Int64
    let length: Int
    let params: IOParameters
    let handlerQueue: DispatchQueue
    let handler: IOHandler
    let isConvenience: Bool

    var total = 0
    var err: Int32 = 0
    /// Read: bytes read and not yet delivered (earlier buffers). Write: bytes not yet written.
    var data: DispatchData
    /// The buffer of the current system call: owned (read) or inside `bufferData` (write).
    var buffer: UnsafeMutableRawPointer?
    var bufferData: DispatchData?
    var bufferSize = 0
    var bufferLength = 0
    var undelivered = 0
    var pendingFlags: IODeliverFlags = []
    var timer: (any DispatchSourceTimer)?
    var isFinished = false

    /// Bytes read and handed to the handler queue whose handler has not returned yet, and
    /// whether the lane stopped reading because of them (guarded by `flowLock`). A slow
    /// handler thus bounds the memory of a large read instead of letting chunks pile up.
    ///
    /// The pause must never be what keeps the handler from running: the handler queue
    /// may be busy with work that waits for this read (a block writing the pipe the read
    /// drains, a handler waiting for a later read on the channel), which libdispatch, that
    /// never pauses, completes. So a pause during which no handler returns for a whole
    /// `pauseGrace` lapses: reading goes on, unpaused, until a handler returns. While
    /// handlers keep returning, however slowly, the pause holds (its timer is re-armed):
    /// a handler that takes 100 ms a chunk still bounds the read.
    private let flowLock = FutexLock()
    private var inFlight = 0
    private var isThrottled = false
    /// Counts pauses, so that a grace timer ends only the pause it was armed for.
    private var pauseCount = 0
    /// Counts handlers that returned, so that a grace timer sees whether one did.
    private var handlerReturns = 0
    /// A pause lapsed and no handler has returned since: do not pause again.
    private var pauseLapsed = false
    /// What the lane calls to go on once the handler caught up. (A resume that comes after
    /// the lane moved on, its operation cancelled, costs one look at the descriptor.)
    var resumeLane: (@Sendable () -> Void)?
    /// Delivered bytes that may wait for the handler before reading pauses.
    static let inFlightBudget = 4 * ioChunkSize
    /// How long a pause waits with no handler returning before it lapses: far longer than
    /// a handler takes for a chunk, short enough that a program whose handler queue waits
    /// for the read is only delayed.
    static let pauseGrace: DispatchTimeInterval = .milliseconds(250)

    init(direction: IODirection, channel: DispatchIO, entry: IOFileEntry, offset: Int64, length: Int,
         data: DispatchData, params: IOParameters, queue: DispatchQueue, handler: IOHandler,
         isConvenience: Bool = false) {
        self.direction = direction
        self.channel = channel
        self.entry = entry
        self.offset = offset
        self.length = length
        self.data = data
        self.params = params
        self.handlerQueue = DispatchQueue(label: "conveyor.io.operation", target: queue)
        self.handler = handler
        self.isConvenience = isConvenience
    }

    deinit {
        if direction == .read, let buffer { IOBufferPool.shared.give(buffer, size: bufferSize) }
    }

    /// The error an operation sees now: ECANCELED once stopped, else the descriptor's.
    func currentError() -> Int32 {
        if channel.isStopped { return ECANCELED }
        return entry.err
    }

    // MARK: performing (on the lane's queue)

    /// One system call. Regular files block (the caller tells the pool); other fds are
    /// non-blocking.
    func perform() -> IOStepResult {
        var error = currentError()
        if error != 0 { return fail(error) }
        if buffer == nil { prepareBuffer() }
        error = entry.openIfNeeded()
        if error != 0 { return fail(error) }
        let fd = entry.fd
        let position = buffer! + bufferLength
        let count = bufferSize - bufferLength
        let fileOffset = off_t(offset) + off_t(total)
        var processed: Int
        repeat {
            switch (direction, channel.type) {
            case (.read, .stream): processed = Glibc.read(fd, position, count)
            case (.read, .random): processed = pread(fd, position, count, fileOffset)
            case (.write, .stream): processed = IOWriter.write(fd, position, count)
            case (.write, .random): processed = IOWriter.pwrite(fd, position, count, fileOffset)
            }
        } while processed < 0 && errno == EINTR
        if processed < 0 { return fail(errno) }
        if processed == 0 { return .deliverAndComplete }
        bufferLength += processed
        total += processed
        return total == length ? .complete : .deliver
    }

    private func fail(_ error: Int32) -> IOStepResult {
        if error == EAGAIN || error == EWOULDBLOCK {
            if direction == .read && total > 0 && isConvenience { return .completeResume }
            return .resume
        }
        err = error
        switch error {
        case ECANCELED: return .canceled
        case EBADF:
            entry.recordDescriptorError(EBADF)
            return .descriptorError
        default: return .complete
        }
    }

    private func prepareBuffer() {
        var room = params.high
        switch direction {
        case .read:
            if data.count > 0 { room -= data.count }
            room = min(room, ioChunkSize)
            bufferSize = length < Int.max ? min(length - total, room) : room
            buffer = IOBufferPool.shared.take(size: bufferSize)
        case .write:
            // Write the first region whole; add further regions while under a chunk.
            let chunk = min(ioChunkSize, room)
            var size = 0
            data.enumerateBytes { region, _, stop in
                let next = size + region.count
                if size == 0 || next <= chunk { size = next }
                stop = next >= chunk
            }
            bufferSize = min(size, room)
            let piece = data.subdata(in: 0..<bufferSize)
            bufferData = piece
            buffer = UnsafeMutableRawPointer(mutating: piece.storage.contiguousBytes())
        }
    }

    // MARK: delivering

    /// Hands data to the handler when the water marks (or `flags`) say so; mirrors
    /// libdispatch's `_dispatch_operation_deliver_data`.
    func deliver(_ flags: IODeliverFlags) {
        var error: Int32 = 0
        let pending = undelivered + bufferLength
        var shouldDeliver = !flags.isDisjoint(with: [.deliver, .done]) || pendingFlags.contains(.deliver)
        pendingFlags = []
        if !shouldDeliver {
            if pending >= params.low {
                shouldDeliver = true
            } else if bufferLength < bufferSize {
                return
            }
        } else {
            error = err
            if error == 0 && channel.isStopped {
                error = ECANCELED
                err = error
            }
        }
        var delivered: DispatchData
        switch direction {
        case .read:
            if bufferLength > 0, let filled = buffer {
                let region: DataRegion
                if bufferLength < bufferSize / 2 {
                    // Mostly empty (a pipe's few bytes): keep a right-sized copy, reuse the buffer.
                    region = DataRegion.copying(filled, count: bufferLength)
                    IOBufferPool.shared.give(filled, size: bufferSize)
                } else {
                    region = DataRegion(base: UnsafeRawPointer(filled), count: bufferLength,
                                        release: .pool(IOBufferPool.shared, capacity: bufferSize))
                }
                buffer = nil
                bufferLength = 0
                delivered = data
                delivered.append(DispatchData(region: region))
            } else {
                delivered = data
            }
            data = shouldDeliver ? .empty : delivered
        case .write:
            delivered = shouldDeliver ? data.subdata(in: bufferLength..<Int.max) : .empty
            if bufferData != nil && bufferLength == bufferSize {
                bufferData = nil
                buffer = nil
                bufferLength = 0
                data = shouldDeliver ? delivered : data.subdata(in: bufferSize..<Int.max)
            }
        }
        if !shouldDeliver || (flags.contains(.noEmpty) && delivered.count == 0) {
            undelivered = pending
            return
        }
        undelivered = 0
        let done = flags.contains(.done)
        let piece = delivered
        let code = error
        let direction = self.direction
        let handler = self.handler
        let entry = self.entry
        entry.retain()
        // Only bytes read count: what a write reports is the caller's own data, not yet
        // written (counted, each progress report counted it again, and a 2 MiB write
        // paused its lane for ever).
        let weight = direction == .read ? piece.count : 0
        flowLock.withLock { inFlight += weight }
        handlerQueue.async { [self] in
            var payload: DispatchData? = piece
            if done {
                if direction == .read && code != 0 {
                    if piece.count > 0 { handler.call(false, piece, 0) }
                    payload = nil
                } else if direction == .write && code == 0 {
                    payload = nil
                }
            }
            handler.call(done, payload, code)
            handlerReturned(weight)
            entry.release()
        }
    }

    /// On the lane: whether reading must pause until the handler catches up. The check and
    /// the flag are one step under `flowLock`, and `handlerReturned` clears the flag under
    /// the same lock, so a handler that returns meanwhile always sees the flag it must clear.
    /// When it pauses, it arms the grace timer; whichever of the timer and
    /// `handlerReturned` clears `isThrottled` under the lock resumes the lane, once.
    func shouldPauseForHandler() -> Bool {
        let armed: (pause: Int, returns: Int)? = flowLock.withLock {
            if inFlight <= IOOperation.inFlightBudget || pauseLapsed { return nil }
            isThrottled = true
            pauseCount &+= 1
            return (pauseCount, handlerReturns)
        }
        guard let armed else { return false }
        armPauseGrace(pause: armed.pause, returnsSeen: armed.returns)
        return true
    }

    private func armPauseGrace(pause: Int, returnsSeen: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + IOOperation.pauseGrace) { [weak self] in
            self?.pauseGraceEnded(pause, returnsSeen: returnsSeen)
        }
    }

    /// The grace timer of pause `pause` fired: it lapses the pause if no handler returned
    /// since the timer was armed, and arms it again if one did (under `flowLock`, as the
    /// pause and the count it reads).
    private func pauseGraceEnded(_ pause: Int, returnsSeen: Int) {
        enum Outcome { case nothing, rearm(Int), lapse }
        let outcome: Outcome = flowLock.withLock {
            guard isThrottled && pauseCount == pause else { return .nothing }
            if handlerReturns != returnsSeen { return .rearm(handlerReturns) }
            isThrottled = false
            pauseLapsed = true
            return .lapse
        }
        switch outcome {
        case .nothing: break
        case .rearm(let returns): armPauseGrace(pause: pause, returnsSeen: returns)
        case .lapse: resumeLane?()
        }
    }

    private func handlerReturned(_ weight: Int) {
        let resume = flowLock.withLock {
            inFlight -= weight
            handlerReturns &+= 1
            pauseLapsed = false   // the handler queue moves: pausing is safe again
            if isThrottled && inFlight <= IOOperation.inFlightBudget / 2 {
                isThrottled = false
                return true
            }
            return false
        }
        if resume { resumeLane?() }
    }

    /// The final delivery (libdispatch does it when the operation is freed): whatever is
    /// pending, `done` set, and the error.
    func finish() {
        if isFinished { return }
        isFinished = true
        timer?.cancel()
        timer = nil
        deliver(.done)
        entry.barrierGroup.leave()
        entry.release()
    }

    /// Starts the interval timer (`setInterval`) on the lane's queue.
    func startIntervalTimer(on queue: DispatchQueue) {
        guard params.interval > 0 else { return }
        let source = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(min(params.interval, UInt64(Int.max)))
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        source.setEventHandler { [weak self] in
            guard let self, !self.isFinished else { return }
            self.deliver(self.params.strictInterval ? .deliver : [])
        }
        source.resume()
        timer = source
    }
}
