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
import Conveyor
#else
import CComposeDispatch
import Dispatch
#endif
import Glibc
import Synchronization

/// A stream channel (`Program.Op.channel`, DispatchIO) reading a pipe to the end of the
/// file, its handlers and cleanup handler blocks of `q`; the caller writes `chunks` chunks
/// of `bytes` bytes with write(2), or through a second channel whose handlers are blocks of
/// `writeQueue` (each write's handler ends once, and the write channel's cleanup handler
/// closes the write end). The reader closes its channel in the handler that ends the read,
/// or gives it up as soon as the read is asked for (`keepChannel` false): the read must
/// still complete and the cleanup handler run. Every byte once and in order, the pieces
/// of one read never overlap and none follows the last, the cleanup handler runs once.
extension Runner {
    func channel(_ q: Int, chunks: Int, bytes: Int, highWater: Int?, writeQueue: Int?, keepChannel: Bool) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            checker.fail("pipe failed (errno \(errno))")
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        let reader = ChannelReader(expected: chunks * bytes, what: "channel on q\(q)")
        checker.expect()   // the reader: done by its cleanup handler
        let piece: @Sendable (Bool, UnsafeRawBufferPointer, Int32) -> Void = { [self] done, buffer, error in
            enterBlock(q, what: "\(reader.what): read handler")
            let last = reader.piece(buffer, done: done, error: error, checker)
            checker.leave(q, barrier: false)
            if last { reader.close() }
        }
        let cleanup: @Sendable (Int32) -> Void = { [self] error in
            enterBlock(q, what: "\(reader.what): cleanup handler")
            reader.cleanup(error: error, checker)
            close(readEnd)
            checker.leave(q, barrier: false)
            checker.done()
        }
        if program.api == .c {
            let handlers = ChannelHandlers(piece: { done, bytes, count, error in
                piece(done != 0, UnsafeRawBufferPointer(start: bytes, count: count), error)
            }, cleanup: cleanup)
            let raw = Unmanaged.passRetained(handlers).toOpaque()
            let channel = compose_c_io_create(cQueues[q], readEnd, raw) { raw, error in
                Unmanaged<ChannelHandlers>.fromOpaque(raw!).takeRetainedValue().cleanup(error)
            }!
            if let highWater { compose_c_io_set_high_water(channel, highWater) }
            if keepChannel {
                reader.keep { compose_c_io_close(channel); compose_c_release(channel) }
            }
            compose_c_io_read(channel, cQueues[q], raw) { raw, done, bytes, count, error in
                Unmanaged<ChannelHandlers>.fromOpaque(raw!).takeUnretainedValue().piece(done, bytes, count, error)
            }
            if !keepChannel { compose_c_release(channel) }
        } else {
            let channel = DispatchIO(type: .stream, fileDescriptor: readEnd, queue: queues[q], cleanupHandler: cleanup)
            if let highWater { channel.setLimit(highWater: highWater) }
            if keepChannel { reader.keep { channel.close() } }
            channel.read(offset: 0, length: Int.max, queue: queues[q]) { done, data, error in
                let received = data.map { [UInt8]($0) } ?? []
                received.withUnsafeBytes { piece(done, $0, error) }
            }
        }
        var stream = [UInt8](repeating: 0, count: chunks * bytes)
        for index in stream.indices { stream[index] = PipeReader.byte(at: index) }
        if let writeQueue {
            writeThroughChannel(stream, chunks: chunks, bytes: bytes, descriptor: ends[1], on: writeQueue)
        } else {
            // At most 16 KiB in all: the pipe's buffer takes it without blocking.
            for chunk in 0..<chunks where write(ends[1], stream.withUnsafeBytes { $0.baseAddress! + chunk * bytes }, bytes) != bytes {
                checker.fail("a write to a pipe failed (errno \(errno))")
            }
            close(ends[1])
        }
    }

    /// Writes `stream` in chunks through a channel of its own on `descriptor`, handlers on
    /// `w`, and closes the channel at once: the writes must still complete, each write's
    /// handler end once, and the cleanup handler (which closes the descriptor) run once.
    private func writeThroughChannel(_ stream: [UInt8], chunks: Int, bytes: Int, descriptor: Int32, on w: Int) {
        let what = "write channel on q\(w)"
        let cleanedUp = Once("\(what): cleanup handler")
        checker.expect()
        let cleanup: @Sendable (Int32) -> Void = { [self] error in
            enterBlock(w, what: "\(what): cleanup handler")
            cleanedUp.run(checker)
            if error != 0 { checker.fail("\(what): cleanup handler got error \(error)") }
            close(descriptor)
            checker.leave(w, barrier: false)
            checker.done()
        }
        let channel: UnsafeMutableRawPointer?
        let swiftChannel: DispatchIO?
        if program.api == .c {
            let raw = Unmanaged.passRetained(ChannelHandlers(piece: { _, _, _, _ in }, cleanup: cleanup)).toOpaque()
            channel = compose_c_io_create(cQueues[w], descriptor, raw) { raw, error in
                Unmanaged<ChannelHandlers>.fromOpaque(raw!).takeRetainedValue().cleanup(error)
            }
            swiftChannel = nil
        } else {
            channel = nil
            swiftChannel = DispatchIO(type: .stream, fileDescriptor: descriptor, queue: queues[w], cleanupHandler: cleanup)
        }
        for chunk in 0..<chunks {
            let ended = Once("\(what): the end of write \(chunk)")
            checker.expect()
            let handler: @Sendable (Bool, Int, Int32) -> Void = { [self] done, remaining, error in
                enterBlock(w, what: "\(what): write handler")
                if ended.count > 0 { checker.fail("\(what): a handler of write \(chunk) after its end") }
                if error != 0 { checker.fail("\(what): write \(chunk) got error \(error)") }
                if done {
                    ended.run(checker)
                    if remaining != 0 { checker.fail("\(what): write \(chunk) ended with \(remaining) bytes not written") }
                }
                checker.leave(w, barrier: false)
                if done { checker.done() }
            }
            let range = chunk * bytes..<(chunk + 1) * bytes
            if let channel {
                let raw = Unmanaged.passRetained(ChannelHandlers(piece: { done, _, remaining, error in
                    handler(done != 0, remaining, error)
                }, cleanup: { _ in })).toOpaque()
                stream[range].withUnsafeBytes { buffer in
                    compose_c_io_write(channel, cQueues[w], buffer.baseAddress, bytes, raw) { raw, done, _, remaining, error in
                        let handlers = Unmanaged<ChannelHandlers>.fromOpaque(raw!)
                        handlers.takeUnretainedValue().piece(done, nil, remaining, error)
                        if done != 0 { handlers.release() }
                    }
                }
            } else if let swiftChannel {
                let data = stream[range].withUnsafeBytes { DispatchData(bytes: $0) }
                swiftChannel.write(offset: 0, data: data, queue: queues[w]) { done, remaining, error in
                    handler(done, remaining?.count ?? 0, error)
                }
            }
        }
        if let channel {
            compose_c_io_close(channel)
            compose_c_release(channel)
        }
        swiftChannel?.close()
    }
}

/// A C channel's handlers, passed to the shim as its context.
private final class ChannelHandlers: @unchecked Sendable {
    let piece: @Sendable (Int32, UnsafeRawPointer?, Int, Int32) -> Void
    let cleanup: @Sendable (Int32) -> Void
    init(piece: @escaping @Sendable (Int32, UnsafeRawPointer?, Int, Int32) -> Void, cleanup: @escaping @Sendable (Int32) -> Void) {
        self.piece = piece
        self.cleanup = cleanup
    }
}

/// What a channel's read handlers and cleanup handler saw.
final class ChannelReader: @unchecked Sendable {
    let expected: Int
    let what: String
    private struct State {
        var received = 0
        var ended = false
        var cleanedUp = false
        /// Closes the channel and lets it go, when the reader keeps it.
        var close: (() -> Void)?
    }
    private let state = Locked(State())
    /// Set while a handler runs: the pieces of one read never overlap.
    private let inHandler = Atomic<Bool>(false)

    init(expected: Int, what: String) {
        self.expected = expected
        self.what = what
    }

    func keep(_ close: @escaping () -> Void) { state.withLock { $0.close = close } }

    /// Closes the kept channel, if any (after the read's last piece).
    func close() { state.withLock { state in defer { state.close = nil }; return state.close }?() }

    /// A piece of the read; true when it is the last.
    func piece(_ buffer: UnsafeRawBufferPointer, done: Bool, error: Int32, _ checker: Checker) -> Bool {
        if inHandler.exchange(true, ordering: .acquiring) { checker.fail("\(what): two read handlers ran at once") }
        defer { inHandler.store(false, ordering: .releasing) }
        return state.withLock { state in
            if state.ended { checker.fail("\(what): a read handler ran after the one that ended the read") }
            if state.cleanedUp { checker.fail("\(what): a read handler ran after the cleanup handler") }
            PipeReader.check(buffer, from: state.received, checker, what: what)
            state.received += buffer.count
            if error != 0 { checker.fail("\(what): the read got error \(error) after \(state.received) bytes") }
            guard done else { return false }
            if state.received != expected { checker.fail("\(what): the read ended after \(state.received) of \(expected) bytes") }
            state.ended = true
            return true
        }
    }

    func cleanup(error: Int32, _ checker: Checker) {
        state.withLock { state in
            if state.cleanedUp { checker.fail("\(what): the cleanup handler ran twice") }
            state.cleanedUp = true
            if !state.ended { checker.fail("\(what): the cleanup handler ran before the read ended (\(state.received) of \(expected) bytes)") }
            if error != 0 { checker.fail("\(what): the cleanup handler got error \(error)") }
        }
    }
}
