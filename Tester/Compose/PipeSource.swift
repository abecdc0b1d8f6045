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

/// A read source on a pipe (`Program.Op.pipe`): the submitting context writes `chunks`
/// chunks of `bytes` bytes and closes the write end; the source's handlers, blocks of
/// `q` for the checker, read what is there until the end of the file, then cancel; the
/// cancel handler closes the read end. Every byte must arrive once and in order, no event
/// handler may run while the source is suspended, overlap another, or follow the cancel
/// handler, and the cancel handler must run once, after the end of the file.
extension Runner {
    func pipe(_ q: Int, chunks: Int, bytes: Int, suspendSource: Bool) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            checker.fail("pipe failed (errno \(errno))")
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let reader = PipeReader(descriptor: ends[0], expected: chunks * bytes)
        let writer = ends[1]
        let what = "read source on q\(q)"
        checker.expect()
        let event: @Sendable () -> Bool = { [self] in
            enterBlock(q, what: "\(what): event")
            let atEnd = reader.read(checker, what: what)
            checker.leave(q, barrier: false)
            return atEnd
        }
        let cancelled: @Sendable () -> Void = { [self] in
            enterBlock(q, what: "\(what): cancel handler")
            reader.cancelled(checker, what: what)
            checker.leave(q, barrier: false)
            checker.done()
        }
        let suspend: () -> Void
        let resume: () -> Void
        if program.api == .c {
            let source = cSource(event: event, cancelled: cancelled) {
                compose_c_descriptor_source_create(cQueues[q], reader.descriptor, 0, $0, $1, $2)
            }
            suspend = { compose_c_suspend(source) }
            resume = { compose_c_resume(source) }
        } else {
            let source = DispatchSource.makeReadSource(fileDescriptor: reader.descriptor, queue: queues[q])
            reader.keep(source)
            source.setEventHandler { if event() { reader.cancelSource() } }
            source.setCancelHandler { cancelled() }
            source.activate()
            suspend = { source.suspend() }
            resume = { source.resume() }
        }
        if suspendSource {
            reader.setSuspended(true)
            suspend()
        }
        var chunk = [UInt8](repeating: 0, count: bytes)
        var offset = 0
        for _ in 0..<chunks {
            for index in chunk.indices { chunk[index] = PipeReader.byte(at: offset + index) }
            // At most 16 KiB in all: the pipe's buffer takes it without blocking.
            if write(writer, chunk, bytes) != bytes { checker.fail("a write to a pipe failed (errno \(errno))") }
            offset += bytes
        }
        close(writer)
        if suspendSource {
            reader.setSuspended(false)
            resume()
        }
    }
}

/// The read end of a pipe a read source watches, and what its handlers saw. The Swift
/// API's source is kept here until its cancel handler ran (its handlers' cycle).
final class PipeReader: @unchecked Sendable {
    let descriptor: Int32
    let expected: Int
    // The source is touched only under the lock.
    private struct State: @unchecked Sendable {
        var received = 0
        var atEnd = false
        var cancelHandlerRan = false
        var suspended = false
        var source: (any DispatchSourceProtocol)?
    }
    private let state = Locked(State())
    /// Set while a handler runs: handlers of one source never overlap.
    private let inHandler = Atomic<Bool>(false)

    init(descriptor: Int32, expected: Int) {
        self.descriptor = descriptor
        self.expected = expected
    }

    /// The byte at `offset` of the stream: a pattern that shows a lost or repeated chunk.
    static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ 7) }

    /// Fails unless `bytes` are the stream's bytes from `offset` on.
    static func check(_ bytes: UnsafeRawBufferPointer, from offset: Int, _ checker: Checker, what: String) {
        for index in bytes.indices where bytes[index] != byte(at: offset + index) {
            checker.fail("\(what): byte \(offset + index) of the stream is wrong (a chunk lost or repeated)")
            return
        }
    }

    func keep(_ source: any DispatchSourceProtocol) { state.withLock { $0.source = source } }
    func cancelSource() { state.withLock { $0.source }?.cancel() }
    func setSuspended(_ suspended: Bool) { state.withLock { $0.suspended = suspended } }

    /// An event: reads everything there is; true at the end of the file.
    func read(_ checker: Checker, what: String) -> Bool {
        if inHandler.exchange(true, ordering: .acquiring) { checker.fail("\(what): two event handlers ran at once") }
        defer { inHandler.store(false, ordering: .releasing) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        return state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): an event handler ran after the cancel handler") }
            if state.suspended { checker.fail("\(what): an event handler ran while the source was suspended") }
            if state.atEnd { checker.fail("\(what): an event handler ran after the one that read the end and cancelled") }
            while true {
                let count = Glibc.read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    buffer.withUnsafeBytes { PipeReader.check(UnsafeRawBufferPointer(rebasing: $0[0..<count]), from: state.received, checker, what: what) }
                    state.received += count
                } else if count == 0 {
                    if state.received != expected { checker.fail("\(what): the end of the file after \(state.received) of \(expected) bytes") }
                    state.atEnd = true
                    return true
                } else {
                    if errno != EAGAIN { checker.fail("\(what): read failed (errno \(errno))") }
                    return false
                }
            }
        }
    }

    /// The cancel handler: closes the read end.
    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelHandlerRan = true
            if !state.atEnd { checker.fail("\(what): cancelled before the end of the file (\(state.received) of \(expected) bytes)") }
            state.source = nil
        }
        close(descriptor)
    }
}
