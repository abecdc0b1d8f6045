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
import Conveyor
#else
import Dispatch
#endif
#if canImport(Glibc)
import Glibc
#endif

/// DispatchIO: the convenience reads and writes, channels on files and pipes, and the
/// errors they report.
enum IOQuestions {
    /// A temporary file holding `count` bytes (byte i is i % 251), opened for reading.
    static func file(_ count: Int) -> Int32 {
        var template = Array("/tmp/conveyor-semantics-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        unlink(template)
        let bytes = (0..<count).map { UInt8($0 % 251) }
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, count) }
        lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }

    /// The handler calls of one operation, as `(done, bytes, error)`, after the last.
    final class Calls: @unchecked Sendable {
        var entries: [String] = []
        var total = 0
        var bytes: [UInt8] = []
        let finished = DispatchSemaphore(value: 0)
        func record(_ done: Bool, _ count: Int, _ error: Int32) {
            entries.append("(\(done), \(count), \(error))")
            total += count
            if done { finished.signal() }
        }
        func await() -> String {
            _ = finished.wait(timeout: .now() + 5)
            return entries.joined(separator: " ")
        }
    }

    static func ask() {
        let queue = DispatchQueue(label: "io")
        let ten = file(10_000)
        let read = DispatchSemaphore(value: 0)
        DispatchIO.read(fromFileDescriptor: ten, maxLength: 20_000, runningHandlerOn: queue) { data, error in
            answer("read(fromFileDescriptor:) of 10000 bytes", "\(data.count) bytes, error \(error)")
            read.signal()
        }
        _ = read.wait(timeout: .now() + 5)
        DispatchIO.read(fromFileDescriptor: ten, maxLength: 100, runningHandlerOn: queue) { data, error in
            answer("read(fromFileDescriptor:) at the end", "\(data.count) bytes, error \(error)")
            read.signal()
        }
        _ = read.wait(timeout: .now() + 5)
        DispatchIO.read(fromFileDescriptor: -1, maxLength: 100, runningHandlerOn: queue) { data, error in
            answer("read(fromFileDescriptor:) of descriptor -1", "\(data.count) bytes, error \(error)")
            read.signal()
        }
        _ = read.wait(timeout: .now() + 5)

        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { answer("pipe", "failed"); return }
        let bytes = [UInt8](repeating: 3, count: 300)
        let data = bytes.withUnsafeBytes { DispatchData(bytes: $0) }
        DispatchIO.write(toFileDescriptor: descriptors[1], data: data, runningHandlerOn: queue) { left, error in
            answer("write(toFileDescriptor:) of 300 bytes", "left \(left?.count as Any), error \(error)")
            read.signal()
        }
        _ = read.wait(timeout: .now() + 5)
        close(descriptors[1])
        var drained = [UInt8](repeating: 0, count: 400)
        answer("the pipe got", Glibc.read(descriptors[0], &drained, 400))
        close(descriptors[0])

        // A stream channel on a file, with a high-water mark: the handler's calls.
        lseek(ten, 0, SEEK_SET)
        let cleaned = DispatchSemaphore(value: 0)
        let stream = DispatchIO(type: .stream, fileDescriptor: ten, queue: queue) { error in
            answer("stream channel cleanup", "error \(error)")
            cleaned.signal()
        }
        stream.setLimit(highWater: 4_096)
        let calls = Calls()
        stream.read(offset: 0, length: 10_000, queue: queue) { done, data, error in calls.record(done, data?.count ?? -1, error) }
        answer("stream read with high water 4096, its calls", calls.await())
        let atEnd = Calls()
        stream.read(offset: 0, length: 10, queue: queue) { done, data, error in atEnd.record(done, data?.count ?? -1, error) }
        answer("stream read at the end", atEnd.await())
        stream.close()
        _ = cleaned.wait(timeout: .now() + 5)

        // A random-access channel's offsets count from the file position it was made at.
        lseek(ten, 1_000, SEEK_SET)
        let random = DispatchIO(type: .random, fileDescriptor: ten, queue: queue) { _ in cleaned.signal() }
        let window = Calls()
        random.read(offset: 100, length: 50, queue: queue) { done, data, error in
            if let data { window.bytes += Array(data) }
            window.record(done, data?.count ?? -1, error)
        }
        _ = window.await()
        answer("random read 50 at 100, made at 1000", "\(window.bytes.count) bytes, first \(window.bytes.first.map(String.init) ?? "none")")
        let past = Calls()
        random.read(offset: 20_000, length: 10, queue: queue) { done, data, error in past.record(done, data?.count ?? -1, error) }
        answer("random read past the end", past.await())
        random.close()
        _ = cleaned.wait(timeout: .now() + 5)
        close(ten)

        // A pending read on a pipe, stopped by close(flags: .stop).
        guard pipe(&descriptors) == 0 else { answer("pipe", "failed"); return }
        let pending = DispatchIO(type: .stream, fileDescriptor: descriptors[0], queue: queue) { error in
            answer("stopped channel cleanup", "error \(error)")
            cleaned.signal()
        }
        let stopped = Calls()
        pending.read(offset: 0, length: 100, queue: queue) { done, data, error in stopped.record(done, data?.count ?? -1, error) }
        pending.close(flags: .stop)
        answer("read stopped by close(.stop)", stopped.await())
        _ = cleaned.wait(timeout: .now() + 5)
        close(descriptors[0])
        close(descriptors[1])

        let badChannel = DispatchIO(type: .stream, fileDescriptor: -1, queue: queue) { error in
            answer("channel on descriptor -1 cleanup", "error \(error)")
            cleaned.signal()
        }
        let bad = Calls()
        badChannel.read(offset: 0, length: 10, queue: queue) { done, data, error in bad.record(done, data?.count ?? -1, error) }
        answer("read on a channel on descriptor -1", bad.await())
        badChannel.close()
        _ = cleaned.wait(timeout: .now() + 5)

        let missing = DispatchIO(type: .stream, path: "/nonexistent/conveyor", oflag: O_RDONLY, mode: 0, queue: queue) { error in
            answer("channel on a missing path cleanup", "error \(error)")
            cleaned.signal()
        }
        answer("channel on a missing path made", missing != nil)
        if let missing {
            let noFile = Calls()
            missing.read(offset: 0, length: 10, queue: queue) { done, data, error in noFile.record(done, data?.count ?? -1, error) }
            answer("read on a missing path", noFile.await())
            missing.close()
            _ = cleaned.wait(timeout: .now() + 5)
        }
    }
}
