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

/// A write source on a pipe (`Program.Op.writeSource`, plain threads only): the pipe holds
/// 4 KiB, the source on `q` writes `bytes` bytes into it as it becomes writable, then
/// cancels itself, and its cancel handler closes the write end; the caller reads the
/// other end until the end of the file. Every byte once and in order; the handlers are
/// blocks of `q`, never overlap and never follow the cancel handler, which runs once.
extension Runner {
    func writeSource(_ q: Int, bytes: Int) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            checker.fail("pipe failed (errno \(errno))")
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[1], 1_031, 4_096)   // F_SETPIPE_SZ (Linux; Glibc does not export its name)
        let writer = PipeWriter(descriptor: ends[1], total: bytes, what: "write source on q\(q)")
        checker.expect()
        let event: @Sendable () -> Bool = { [self] in
            enterBlock(q, what: "\(writer.what): event")
            let done = writer.write(checker)
            checker.leave(q, barrier: false)
            return done
        }
        let cancelled: @Sendable () -> Void = { [self] in
            enterBlock(q, what: "\(writer.what): cancel handler")
            writer.cancelled(checker)
            checker.leave(q, barrier: false)
            checker.done()
        }
        if program.api == .c {
            _ = cSource(event: event, cancelled: cancelled) { compose_c_descriptor_source_create(cQueues[q], ends[1], 1, $0, $1, $2) }
        } else {
            let source = DispatchSource.makeWriteSource(fileDescriptor: ends[1], queue: queues[q])
            // The toolchain's source types are not Sendable; only the handler cancels it.
            final class Canceller: @unchecked Sendable {
                var source: (any DispatchSourceProtocol)?
            }
            let canceller = Canceller()
            canceller.source = source
            source.setEventHandler { if event() { canceller.source?.cancel() } }
            source.setCancelHandler {
                cancelled()
                canceller.source = nil   // the source's handlers hold the canceller: break the cycle
            }
            source.activate()
        }
        var buffer = [UInt8](repeating: 0, count: 1_024)
        var received = 0
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count > 0 {
                buffer.withUnsafeBytes { PipeReader.check(UnsafeRawBufferPointer(rebasing: $0[0..<count]), from: received, checker, what: writer.what) }
                received += count
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        if received != bytes { checker.fail("\(writer.what): the reader got \(received) of \(bytes) bytes before the end of the file") }
        close(ends[0])
    }
}

/// The write end of a pipe a write source fills, and what its handlers saw.
final class PipeWriter: @unchecked Sendable {
    let descriptor: Int32
    let total: Int
    let what: String
    private struct State { var written = 0; var cancelHandlerRan = false; var finished = false }
    private let state = Locked(State())
    /// Set while a handler runs: handlers of one source never overlap.
    private let inHandler = Atomic<Bool>(false)

    init(descriptor: Int32, total: Int, what: String) {
        self.descriptor = descriptor
        self.total = total
        self.what = what
    }

    /// An event: writes what the pipe takes; true when everything is written.
    func write(_ checker: Checker) -> Bool {
        if inHandler.exchange(true, ordering: .acquiring) { checker.fail("\(what): two event handlers ran at once") }
        defer { inHandler.store(false, ordering: .releasing) }
        var chunk = [UInt8](repeating: 0, count: 1_024)
        return state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): an event handler ran after the cancel handler") }
            if state.finished { checker.fail("\(what): an event handler ran after the one that finished and cancelled") }
            while state.written < total {
                let count = min(chunk.count, total - state.written)
                for index in 0..<count { chunk[index] = PipeReader.byte(at: state.written + index) }
                let result = Glibc.write(descriptor, chunk, count)
                if result > 0 {
                    state.written += result
                } else {
                    if errno != EAGAIN && errno != EINTR { checker.fail("\(what): write failed (errno \(errno))") }
                    return false
                }
            }
            state.finished = true
            return true
        }
    }

    /// The cancel handler: closes the write end (the reader then sees the end of the file).
    func cancelled(_ checker: Checker) {
        state.withLock { state in
            if state.cancelHandlerRan { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelHandlerRan = true
            if !state.finished { checker.fail("\(what): cancelled before everything was written (\(state.written) of \(total) bytes)") }
        }
        close(descriptor)
    }
}
