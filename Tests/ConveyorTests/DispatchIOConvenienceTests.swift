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
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DispatchIOConvenienceTests {
    let handlers = DispatchQueue(label: "io-convenience-handlers")

    private func staticRead(_ fd: Int32, _ maxLength: Int) -> (Int, Int32, [UInt8])? {
        let result = TestLog<(Int, Int32, [UInt8])>()
        let done = DispatchSemaphore(value: 0)
        DispatchIO.read(fromFileDescriptor: fd, maxLength: maxLength, runningHandlerOn: handlers) { data, error in
            result.append((data.count, error, Array(data)))
            done.signal()
        }
        guard done.wait(timeout: deadline()) == .success else { return nil }
        return result.values.first
    }

    private func staticWrite(_ fd: Int32, _ data: DispatchData) -> (Int?, Int32)? {
        let result = TestLog<(Int?, Int32)>()
        let done = DispatchSemaphore(value: 0)
        DispatchIO.write(toFileDescriptor: fd, data: data, runningHandlerOn: handlers) { rest, error in
            result.append((rest?.count, error))
            done.signal()
        }
        guard done.wait(timeout: deadline()) == .success else { return nil }
        return result.values.first
    }

    @Test func staticReadOnAPipeReturnsWhatIsReady() {
        let (reader, writer) = makePipe()
        _ = write(writer, "abcdef", 6)
        #expect(staticRead(reader, 100).map { "\($0.0)/\($0.1)" } == "\(6)/\(0)")
        _ = write(writer, "abcdef", 6)
        #expect(staticRead(reader, 3).map { "\($0.0)/\($0.1)/\($0.2)" } == "3/0/\(Array("abc".utf8))")
        close(writer)
        #expect(staticRead(reader, 100).map { "\($0.0)/\($0.1)" } == "\(3)/\(0)")
        #expect(staticRead(reader, 100).map { "\($0.0)/\($0.1)" } == "\(0)/\(0)")
        close(reader)
    }

    @Test func staticReadAndWriteOnAFile() {
        let path = makePatternFile(size: 5000)
        defer { unlink(path) }
        let fd = open(path, O_RDWR)
        let first = staticRead(fd, 4000)
        #expect(first?.0 == 4000 && first?.1 == 0 && first?.2 == (0..<4000).map(patternByte))
        let second = staticRead(fd, 4000)
        #expect(second?.0 == 1000 && second?.2 == (4000..<5000).map(patternByte))
        let big = UnsafeMutableRawPointer.allocate(byteCount: 3_000_000, alignment: 16)
        big.initializeMemory(as: UInt8.self, repeating: 7, count: 3_000_000)
        let data = DispatchData(bytes: UnsafeRawBufferPointer(start: big, count: 3_000_000))
        big.deallocate()
        #expect(staticWrite(fd, data).map { $0.0 == nil && $0.1 == 0 } == true)
        #expect(lseek(fd, 0, SEEK_END) == 3_005_000)
        close(fd)
    }

    @Test func staticCallsOnABadDescriptor() {
        #expect(staticRead(9_877, 10).map { "\($0.0)/\($0.1)" } == "\(0)/\(EBADF)")
        #expect(staticWrite(9_877, dispatchData("x")).map { $0.0 == nil && $0.1 == EBADF } == true)
    }

    @Test func largeWriteToAPipeReportsProgressThenCompletes() {
        let (reader, writer) = makePipe()
        let progress = Counter()
        let final = TestLog<IOEvent>()
        let done = DispatchSemaphore(value: 0)
        let cleaned = DispatchSemaphore(value: 0)
        let channel = DispatchIO(type: .stream, fileDescriptor: writer, queue: handlers) { _ in cleaned.signal() }
        let size = 3_000_000
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let data = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: memory, count: size),
                                deallocator: .custom(nil) { memory.deallocate() })
        channel.write(offset: 0, data: data, queue: handlers) { finished, rest, error in
            if finished {
                final.append(IOEvent(true, rest?.count, error))
                done.signal()
            } else {
                progress.increment()
            }
        }
        let total = Counter()
        let drained = TestThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while total.current < size {
                let n = read(reader, &buffer, buffer.count)
                if n <= 0 { break }
                total.value.add(n, ordering: .relaxed)
            }
        }
        #expect(done.wait(timeout: deadline()) == .success)
        drained.join()
        #expect(total.current == size)
        #expect(final.values == [IOEvent(true, nil, 0)])
        #expect(progress.current > 0)
        channel.close()
        #expect(cleaned.wait(timeout: deadline()) == .success)
        close(reader)
        close(writer)
    }

    @Test func writeToAPipeWithoutReaderFailsWithEPIPEAndDoesNotKillTheProcess() async {
        // libdispatch on Linux dies of SIGPIPE here (unless the process ignores it).
        await #expect(processExitsWith: .success) {
            let (reader, writer) = makePipe()
            close(reader)
            let done = DispatchSemaphore(value: 0)
            let events = TestLog<IOEvent>()
            let channel = DispatchIO(type: .stream, fileDescriptor: writer, queue: .global()) { _ in }
            channel.write(offset: 0, data: dispatchData("hello"), queue: .global()) { finished, rest, error in
                events.append(IOEvent(finished, rest?.count, error))
                if finished { done.signal() }
            }
            guard done.wait(timeout: deadline()) == .success else { exit(2) }
            guard events.values == [IOEvent(true, 5, EPIPE)] else { exit(3) }
            let staticResult = TestLog<IOEvent>()
            DispatchIO.write(toFileDescriptor: writer, data: dispatchData("again"), runningHandlerOn: .global()) { rest, error in
                staticResult.append(IOEvent(true, rest?.count, error))
                done.signal()
            }
            channel.close()
            guard done.wait(timeout: deadline()) == .success else { exit(4) }
            exit(staticResult.values == [IOEvent(true, 5, EPIPE)] ? 0 : 5)
        }
    }

    @Test func thousandChannelsAtOnceLeakNoDescriptors() async {
        // In a child process, so that no other test opens descriptors meanwhile.
        await #expect(processExitsWith: .success) {
            let path = makePatternFile(size: 4096, name: "thousand")
            defer { unlink(path) }
            let before = openDescriptorCount()
            let cleaned = DispatchSemaphore(value: 0)
            let read = DispatchSemaphore(value: 0)
            let wrong = Counter()
            var channels: [DispatchIO] = []
            var pipes: [(Int32, Int32)] = []
            for index in 0..<1000 {
                if index % 2 == 0 {
                    let channel = DispatchIO(type: .random, path: path, oflag: O_RDONLY, mode: 0, queue: .global()) { error in
                        if error != 0 { wrong.increment() }
                        cleaned.signal()
                    }!
                    channels.append(channel)
                } else {
                    let pair = makePipe()
                    pipes.append(pair)
                    channels.append(DispatchIO(type: .stream, fileDescriptor: pair.0, queue: .global()) { error in
                        if error != 0 { wrong.increment() }
                        cleaned.signal()
                    })
                    _ = write(pair.1, "x", 1)
                }
            }
            for channel in channels {
                channel.read(offset: 0, length: 1, queue: .global()) { done, data, error in
                    if done {
                        if error != 0 || data?.count != 1 { wrong.increment() }
                        read.signal()
                    }
                }
            }
            for _ in 0..<1000 where read.wait(timeout: deadline()) == .timedOut { exit(2) }
            let open = openDescriptorCount()
            guard descriptors(openOn: path) == 500 else { exit(7) }
            for channel in channels { channel.close() }
            for _ in 0..<1000 where cleaned.wait(timeout: deadline()) == .timedOut { exit(3) }
            for (reader, writer) in pipes { close(reader); close(writer) }
            channels = []
            guard wrong.current == 0 else { exit(4) }
            // 500 files opened lazily plus 1000 pipe ends were open at once; none is left.
            // The totals allow for a few descriptors the runtime and the test harness open
            // and close meanwhile; the files the channels opened are counted exactly.
            guard open >= before + 1500 - 8, descriptors(openOn: path) == 0 else { exit(5) }
            exit(openDescriptorCount() <= before + 8 ? 0 : 6)
        }
    }
}
