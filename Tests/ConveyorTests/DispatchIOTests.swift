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
@testable import ConveyorCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

// The expected handler sequences were checked against the toolchain's Dispatch with the
// same program (a scratch package compiled once with `import Dispatch`, once with Conveyor).

@Suite struct DispatchIOTests {
    let handlers = DispatchQueue(label: "io-test-handlers")

    @Test func randomReadOfAWholeFileComesInChunksThenAnEmptyDone() {
        let path = makePatternFile(size: 3 * 1024 * 1024 + 123)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        let recorder = IORecorder()
        let channel = DispatchIO(type: .random, fileDescriptor: fd, queue: handlers, cleanupHandler: recorder.cleanup)
        channel.read(offset: 0, length: Int.max, queue: handlers, ioHandler: recorder.handler)
        #expect(recorder.waitForDone())
        #expect(recorder.events.values == [IOEvent(false, 1_048_576, 0), IOEvent(false, 1_048_576, 0),
                                          IOEvent(false, 1_048_576, 0), IOEvent(false, 123, 0), IOEvent(true, 0, 0)])
        #expect(recorder.bytes.values == (0..<(3 * 1024 * 1024 + 123)).map(patternByte))
        channel.close()
        #expect(recorder.waitForCleanup())
        #expect(recorder.cleanups.values == [0])
        close(fd)
    }

    @Test func fileLargerThanTheHighWaterMarkArrivesInOrderInPiecesWithinTheMarks() {
        let size = 3 * 1024 * 1024 + 123
        let path = makePatternFile(size: size)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: fd, queue: handlers, cleanupHandler: recorder.cleanup)
        channel.setLimit(highWater: 300_000)
        channel.setLimit(lowWater: 100_000)
        channel.read(offset: 0, length: 1_000_000, queue: handlers, ioHandler: recorder.handler)
        #expect(recorder.waitForDone())
        #expect(recorder.events.values == [IOEvent(false, 300_000, 0), IOEvent(false, 300_000, 0),
                                          IOEvent(false, 300_000, 0), IOEvent(true, 100_000, 0)])
        // The stream channel goes on from the file position.
        let rest = IORecorder()
        channel.read(offset: 0, length: Int.max, queue: handlers, ioHandler: rest.handler)
        #expect(rest.waitForDone())
        #expect(rest.events.values.allSatisfy { ($0.count ?? 0) <= 300_000 && $0.error == 0 })
        #expect(rest.events.values.last == IOEvent(true, 0, 0))
        #expect(recorder.bytes.values + rest.bytes.values == (0..<size).map(patternByte))
        channel.close()
        #expect(recorder.waitForCleanup())
        close(fd)
    }

    @Test func randomOffsetsEndOfFileZeroLengthAndAClosedChannel() {
        let path = makePatternFile(size: 3 * 1024 * 1024 + 123)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        _ = lseek(fd, 100, SEEK_SET)
        let recorder = IORecorder()
        let channel = DispatchIO(type: .random, fileDescriptor: fd, queue: handlers, cleanupHandler: recorder.cleanup)
        func read(_ offset: off_t, _ length: Int) -> ([IOEvent], [UInt8]) {
            let one = IORecorder()
            channel.read(offset: offset, length: length, queue: handlers, ioHandler: one.handler)
            _ = one.waitForDone()
            return (one.events.values, one.bytes.values)
        }
        let (events, bytes) = read(5, 10)
        #expect(events == [IOEvent(true, 10, 0)])
        #expect(bytes == (105..<115).map(patternByte))   // offsets count from the position at creation
        #expect(read(off_t(3 * 1024 * 1024), 1000).0 == [IOEvent(false, 23, 0), IOEvent(true, 0, 0)])
        #expect(read(off_t(4 * 1024 * 1024), 1000).0 == [IOEvent(true, 0, 0)])
        #expect(read(0, 0).0 == [IOEvent(true, 0, 0)])
        #expect(channel.fileDescriptor == fd)
        channel.close()
        #expect(read(0, 10).0 == [IOEvent(true, nil, ECANCELED)])
        #expect(recorder.waitForCleanup())
        #expect(channel.fileDescriptor == -1)
        close(fd)
    }

    @Test func pipeWhoseWriterCloses() {
        let (reader, writer) = makePipe()
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: handlers, cleanupHandler: recorder.cleanup)
        channel.read(offset: 0, length: Int.max, queue: handlers, ioHandler: recorder.handler)
        _ = write(writer, "hello", 5)
        close(writer)
        #expect(recorder.waitForDone())
        #expect(recorder.events.values == [IOEvent(false, 5, 0), IOEvent(true, 0, 0)])
        #expect(recorder.bytes.values == Array("hello".utf8))
        channel.close()
        #expect(recorder.waitForCleanup())
        #expect(recorder.cleanups.values == [0])
        // The fd is blocking again once the channel let go of it.
        #expect(fcntl(reader, F_GETFL) & O_NONBLOCK == 0)
        close(reader)
    }

    @Test func barrierRunsOnTheChannelsTargetQueue() {
        let (reader, writer) = makePipe()
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: handlers, cleanupHandler: recorder.cleanup)
        let target = DispatchQueue(label: "io-target")
        let key = DispatchSpecificKey<Int>()
        target.setSpecific(key: key, value: 42)
        channel.setTarget(queue: target)
        let seen = TestLog<Int?>()
        let done = DispatchSemaphore(value: 0)
        channel.barrier {
            seen.append(DispatchQueue.getSpecific(key: key))
            done.signal()
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(seen.values == [42])
        channel.close()
        #expect(recorder.waitForCleanup())
        close(reader)
        close(writer)
    }

    @Test func socketReadAndWriteThroughTheEventThread() {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let recorder = IORecorder()
        let reader = DispatchIO(type: .stream, fileDescriptor: pair[0], queue: handlers, cleanupHandler: recorder.cleanup)
        reader.read(offset: 0, length: Int.max, queue: handlers, ioHandler: recorder.handler)
        let written = IORecorder()
        let writer = DispatchIO(type: .stream, fileDescriptor: pair[1], queue: handlers, cleanupHandler: written.cleanup)
        writer.write(offset: 0, data: dispatchData("over a socket"), queue: handlers, ioHandler: written.handler)
        #expect(written.waitForDone())
        #expect(written.events.values == [IOEvent(true, nil, 0)])
        writer.close()
        #expect(written.waitForCleanup())
        shutdown(pair[1], Int32(SHUT_WR))
        #expect(recorder.waitForDone())
        #expect(recorder.events.values == [IOEvent(false, 13, 0), IOEvent(true, 0, 0)])
        #expect(recorder.bytes.values == Array("over a socket".utf8))
        reader.close()
        #expect(recorder.waitForCleanup())
        close(pair[0])
        close(pair[1])
    }

    @Test func stopCloseInTheMiddleOfARead() {
        let (reader, writer) = makePipe()
        let recorder = IORecorder()
        let second = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: handlers, cleanupHandler: recorder.cleanup)
        channel.setLimit(lowWater: 1000)
        channel.read(offset: 0, length: Int.max, queue: handlers, ioHandler: recorder.handler)
        channel.read(offset: 0, length: 10, queue: handlers, ioHandler: second.handler)
        _ = write(writer, "abc", 3)
        // Wait until the three bytes were read (they sit below the low-water mark).
        #expect(waitUntil { cnv_readable_bytes(reader) == 0 })
        channel.close(flags: .stop)
        #expect(recorder.waitForDone() && second.waitForDone())
        #expect(recorder.events.values == [IOEvent(false, 3, 0), IOEvent(true, nil, ECANCELED)])
        #expect(second.events.values == [IOEvent(true, nil, ECANCELED)])
        #expect(recorder.waitForCleanup())
        #expect(recorder.cleanups.values == [0])
        let after = IORecorder()
        channel.read(offset: 0, length: 10, queue: handlers, ioHandler: after.handler)
        #expect(after.waitForDone())
        #expect(after.events.values == [IOEvent(true, nil, ECANCELED)])
        #expect(channel.fileDescriptor == -1)
        close(reader)
        close(writer)
    }

    @Test func pathChannelOnAMissingFile() {
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, path: "/tmp/conveyor-missing-dir/file", oflag: O_RDONLY, mode: 0,
                                 queue: handlers, cleanupHandler: recorder.cleanup)
        #expect(channel != nil)
        #expect(recorder.waitForCleanup())
        #expect(recorder.cleanups.values == [ENOENT])
        channel?.read(offset: 0, length: 10, queue: handlers, ioHandler: recorder.handler)
        #expect(recorder.waitForDone())
        #expect(recorder.events.values == [IOEvent(true, nil, ENOENT)])
        // libdispatch returns an invalid object for a relative path; Conveyor returns nil.
        #expect(DispatchIO(type: .stream, path: "relative", oflag: O_RDONLY, mode: 0, queue: handlers) { _ in } == nil)
    }

    @Test func pathChannelOpensLazilyWritesAndReadsBack() {
        let path = "/tmp/conveyor-io-created-\(getpid())"
        defer { unlink(path) }
        let recorder = IORecorder()
        let channel = DispatchIO(type: .random, path: path, oflag: O_RDWR | O_CREAT | O_TRUNC, mode: 0o644,
                                 queue: handlers, cleanupHandler: recorder.cleanup)!
        #expect(channel.fileDescriptor == -1)
        let written = IORecorder()
        channel.write(offset: 3, data: dispatchData("payload"), queue: handlers, ioHandler: written.handler)
        #expect(written.waitForDone())
        #expect(written.events.values == [IOEvent(true, nil, 0)])
        let inBarrier = TestLog<Int32>()
        let barrierDone = DispatchSemaphore(value: 0)
        channel.barrier {
            inBarrier.append(channel.fileDescriptor)
            barrierDone.signal()
        }
        #expect(barrierDone.wait(timeout: deadline()) == .success)
        #expect(inBarrier.values.first.map { $0 >= 0 } == true)
        let read = IORecorder()
        channel.read(offset: 0, length: 100, queue: handlers, ioHandler: read.handler)
        #expect(read.waitForDone())
        #expect(read.events.values == [IOEvent(false, 10, 0), IOEvent(true, 0, 0)])
        #expect(read.bytes.values == [0, 0, 0] + Array("payload".utf8))
        channel.close()
        #expect(recorder.waitForCleanup())
        #expect(recorder.cleanups.values == [0])
    }

    @Test func badDescriptorAndRandomChannelOnAPipe() {
        let bad = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: 9_876, queue: handlers, cleanupHandler: bad.cleanup)
        #expect(bad.waitForCleanup())
        #expect(bad.cleanups.values == [EBADF])
        channel.read(offset: 0, length: 10, queue: handlers, ioHandler: bad.handler)
        #expect(bad.waitForDone())
        #expect(bad.events.values == [IOEvent(true, nil, EBADF)])
        #expect(channel.fileDescriptor == 9_876)

        let (reader, writer) = makePipe()
        let random = IORecorder()
        let onPipe = DispatchIO(type: .random, fileDescriptor: reader, queue: handlers, cleanupHandler: random.cleanup)
        #expect(random.waitForCleanup())
        #expect(random.cleanups.values == [ESPIPE])
        onPipe.read(offset: 0, length: 10, queue: handlers, ioHandler: random.handler)
        #expect(random.waitForDone())
        onPipe.write(offset: 0, data: dispatchData("xyz"), queue: handlers, ioHandler: random.handler)
        #expect(random.waitForDone())
        // A failed write hands back the data it did not write.
        #expect(random.events.values == [IOEvent(true, nil, ESPIPE), IOEvent(true, 3, ESPIPE)])
        close(reader)
        close(writer)
    }

    @Test func strictIntervalDeliversBelowTheLowWaterMark() {
        let (reader, writer) = makePipe()
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: handlers, cleanupHandler: recorder.cleanup)
        channel.setLimit(lowWater: 1000)
        channel.setInterval(interval: .milliseconds(20), flags: .strictInterval)
        channel.read(offset: 0, length: Int.max, queue: handlers, ioHandler: recorder.handler)
        _ = write(writer, "abc", 3)
        #expect(waitUntil { recorder.events.values.contains(IOEvent(false, 3, 0)) })
        close(writer)
        #expect(recorder.waitForDone())
        #expect(recorder.events.values.last == IOEvent(true, 0, 0))
        channel.close()
        #expect(recorder.waitForCleanup())
        close(reader)
    }

    @Test func channelMadeFromAnotherChannelSharesTheFile() {
        let path = makePatternFile(size: 1000)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        _ = lseek(fd, 10, SEEK_SET)
        let first = IORecorder()
        let stream = DispatchIO(type: .stream, fileDescriptor: fd, queue: handlers, cleanupHandler: first.cleanup)
        let second = IORecorder()
        let random = DispatchIO(type: .random, io: stream, queue: handlers, cleanupHandler: second.cleanup)
        random.read(offset: 5, length: 4, queue: handlers, ioHandler: second.handler)
        #expect(second.waitForDone())
        #expect(second.bytes.values == (15..<19).map(patternByte))
        stream.close()
        random.close()
        // One entry for the fd: both cleanup handlers run once both channels are closed.
        #expect(first.waitForCleanup() && second.waitForCleanup())
        close(fd)
    }

    @Test func barrierRunsAfterEarlierOperationsAndBeforeLaterOnes() {
        let size = 2 * 1024 * 1024
        let path = makePatternFile(size: size)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        let order = TestLog<String>()
        let recorder = IORecorder()
        let channel = DispatchIO(type: .stream, fileDescriptor: fd, queue: handlers, cleanupHandler: recorder.cleanup)
        let done = DispatchSemaphore(value: 0)
        channel.read(offset: 0, length: Int.max, queue: handlers) { _, _, _ in }
        // As in libdispatch, the barrier waits for the earlier operations' I/O (not for
        // their last handler calls, which are queued by then): the file position is at the end.
        channel.barrier { order.append("barrier at \(lseek(fd, 0, SEEK_CUR))") }
        channel.read(offset: 0, length: 10, queue: handlers) { finished, _, _ in
            if finished { order.append("read2"); done.signal() }
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(order.values == ["barrier at \(size)", "read2"])
        channel.close()
        #expect(recorder.waitForCleanup())
        close(fd)
    }
}
