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

@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A pipe for tests: [read end, write end].
func makePipe(nonBlockingWriter: Bool = false) -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    if nonBlockingWriter { _ = fcntl(fds[1], F_SETFL, O_NONBLOCK) }
    return (fds[0], fds[1])
}

/// The text of a NUL-terminated C string held in an array.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite struct SourcesDescriptorTests {
    @Test func readSourceSeesDataThenEndOfFile() {
        let (readFD, writeFD) = makePipe()
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: DispatchQueue(label: "read"))
        let log = TestLog<(data: UInt, bytes: Int)>()
        let fired = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        source.setEventHandler {
            let available = source.data
            var buffer = [UInt8](repeating: 0, count: 64)
            let got = read(readFD, &buffer, 64)
            log.append((available, got))
            if available == 0 { source.cancel() }
            fired.signal()
        }
        source.setCancelHandler {
            close(readFD)
            closed.signal()
        }
        #expect(source.handle == UInt(readFD))
        source.activate()
        #expect(write(writeFD, "hello", 5) == 5)
        #expect(fired.wait(timeout: deadline()) == .success)
        close(writeFD)
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(closed.wait(timeout: deadline()) == .success)
        let values = log.values
        #expect(values.count == 2)
        #expect(values.first?.data == 5 && values.first?.bytes == 5)
        #expect(values.last?.data == 0 && values.last?.bytes == 0)
    }

    @Test func readSourceFiresAgainWhileDataIsLeft() {
        let (readFD, writeFD) = makePipe()
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: DispatchQueue(label: "level"))
        let log = TestLog<UInt>()
        let drained = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append(source.data)
            var byte: UInt8 = 0
            _ = read(readFD, &byte, 1)   // one byte per call: the rest must fire again
            if source.data == 1 { drained.signal() }
        }
        source.setCancelHandler {
            close(readFD)
            close(writeFD)
        }
        source.activate()
        #expect(write(writeFD, "abc", 3) == 3)
        #expect(drained.wait(timeout: deadline()) == .success)
        #expect(log.values == [3, 2, 1])
        source.cancel()
    }

    @Test func writeSourceFiresWhenAFullPipeDrains() {
        let (readFD, writeFD) = makePipe(nonBlockingWriter: true)
        var chunk = [UInt8](repeating: 7, count: 4096)
        var filled = 0
        while true {
            let wrote = write(writeFD, &chunk, chunk.count)
            if wrote <= 0 { break }
            filled += wrote
        }
        #expect(filled > 0)
        let source = DispatchSource.makeWriteSource(fileDescriptor: writeFD, queue: DispatchQueue(label: "write"))
        let room = Atomic<UInt>(0)
        let fired = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        source.setEventHandler {
            room.store(source.data, ordering: .relaxed)
            source.cancel()
            fired.signal()
        }
        source.setCancelHandler {
            close(writeFD)
            closed.signal()
        }
        source.activate()
        #expect(fired.wait(timeout: .now() + .milliseconds(100)) == .timedOut)   // still full
        var sink = [UInt8](repeating: 0, count: filled)
        var drained = 0
        while drained < filled {
            let got = sink.withUnsafeMutableBytes { read(readFD, $0.baseAddress! + drained, filled - drained) }
            if got <= 0 { break }
            drained += got
        }
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(room.load(ordering: .relaxed) >= 4096)
        #expect(closed.wait(timeout: deadline()) == .success)
        close(readFD)
    }

    @Test func readSourceOnARegularFileIsAlwaysReady() throws {
        var template = Array("/tmp/conveyor-read-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        unlink(cString(template))
        #expect(write(fd, "0123456789", 10) == 10)
        _ = lseek(fd, 4, SEEK_SET)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "file"))
        let log = TestLog<UInt>()
        let done = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append(source.data)
            if log.count == 2 {
                source.cancel()
            } else {
                _ = lseek(fd, 10, SEEK_SET)
            }
        }
        source.setCancelHandler {
            close(fd)
            done.signal()
        }
        source.activate()
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(log.values == [6, 0])
    }
}
