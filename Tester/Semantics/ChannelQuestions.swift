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

/// DispatchIO channels beyond plain reads: low-water marks, a read of length 0, empty
/// writes, barriers, channels made from channels, writes into files; and descriptor
/// sources on regular files and /dev/null, which epoll cannot watch.
enum ChannelQuestions {
    static func ask() {
        let queue = DispatchQueue(label: "channels")
        let cleaned = DispatchSemaphore(value: 0)
        let ten = IOQuestions.file(10_000)

        let low = DispatchIO(type: .stream, fileDescriptor: ten, queue: queue) { _ in cleaned.signal() }
        low.setLimit(lowWater: 3_000)
        low.setLimit(highWater: 4_000)
        let lowCalls = IOQuestions.Calls()
        low.read(offset: 0, length: 10_000, queue: queue) { done, data, error in lowCalls.record(done, data?.count ?? -1, error) }
        answer("stream read, low water 3000, high water 4000, its calls", lowCalls.await())
        low.close()
        _ = cleaned.wait(timeout: .now() + 5)

        lseek(ten, 0, SEEK_SET)
        let whole = DispatchIO(type: .stream, fileDescriptor: ten, queue: queue) { _ in cleaned.signal() }
        let zero = IOQuestions.Calls()
        whole.read(offset: 0, length: 0, queue: queue) { done, data, error in zero.record(done, data?.count ?? -1, error) }
        answer("stream read of length 0, its calls", zero.await())
        let all = IOQuestions.Calls()
        whole.read(offset: 0, length: Int.max, queue: queue) { done, data, error in all.record(done, data?.count ?? -1, error) }
        answer("stream read of length Int.max, total and last call", { _ = all.await(); return "\(all.total) \(all.entries.last ?? "none")" }())
        let order = EventLog()
        whole.barrier { order.append("barrier") }
        queue.sync {}
        answer("a barrier after a finished read ran", order.await(1))
        answer("fileDescriptor of an open channel is the descriptor", whole.fileDescriptor == ten)
        whole.close()
        _ = cleaned.wait(timeout: .now() + 5)
        answer("fileDescriptor after close", whole.fileDescriptor)

        lseek(ten, 0, SEEK_SET)
        let parent = DispatchIO(type: .stream, fileDescriptor: ten, queue: queue) { _ in cleaned.signal() }
        let child = DispatchIO(type: .stream, io: parent, queue: queue) { error in
            answer("a channel made from a channel, cleanup error", error)
            cleaned.signal()
        }
        let fromChild = IOQuestions.Calls()
        child.read(offset: 0, length: 100, queue: queue) { done, data, error in fromChild.record(done, data?.count ?? -1, error) }
        answer("read through a channel made from a channel, total", { _ = fromChild.await(); return fromChild.total }())
        child.close()
        parent.close()
        _ = cleaned.wait(timeout: .now() + 5)
        _ = cleaned.wait(timeout: .now() + 5)

        var template = Array("/tmp/conveyor-semantics-XXXXXX".utf8CString)
        let writable = mkstemp(&template)
        unlink(template)
        let writer = DispatchIO(type: .random, fileDescriptor: writable, queue: queue) { _ in cleaned.signal() }
        let empty = IOQuestions.Calls()
        writer.write(offset: 0, data: .empty, queue: queue) { done, left, error in empty.record(done, left?.count ?? -1, error) }
        answer("write of no data, its calls", empty.await())
        let bytes = [UInt8](repeating: 7, count: 5_000).withUnsafeBytes { DispatchData(bytes: $0) }
        let wrote = IOQuestions.Calls()
        writer.write(offset: 100, data: bytes, queue: queue) { done, left, error in wrote.record(done, left?.count ?? -1, error) }
        answer("write of 5000 bytes at 100 into a file, last call", { _ = wrote.await(); return wrote.entries.last ?? "none" }())
        writer.close()
        _ = cleaned.wait(timeout: .now() + 5)
        var status = stat()
        fstat(writable, &status)
        answer("the file's size after the write at 100", status.st_size)
        close(writable)

        // Descriptor sources on what epoll cannot watch.
        lseek(ten, 9_900, SEEK_SET)
        answer("read source on a regular file, 100 bytes left", SourceQuestions.firstEvent(
            of: DispatchSource.makeReadSource(fileDescriptor: ten, queue: queue), named: "readable"))
        answer("write source on a regular file", SourceQuestions.firstEvent(
            of: DispatchSource.makeWriteSource(fileDescriptor: ten, queue: queue), named: "writable",
            data: { $0 > 1 ? "more than 1" : "\($0)" }))
        close(ten)
        // (libdispatch on Linux never delivers these: epoll refuses /dev/null; waited for
        // 3 s, not 5.)
        let null = open("/dev/null", O_RDWR)
        answer("read source on /dev/null", SourceQuestions.firstEvent(
            of: DispatchSource.makeReadSource(fileDescriptor: null, queue: queue), named: "readable", seconds: 3))
        answer("write source on /dev/null", SourceQuestions.firstEvent(
            of: DispatchSource.makeWriteSource(fileDescriptor: null, queue: queue), named: "writable",
            data: { $0 > 1 ? "more than 1" : "\($0)" }, seconds: 3))
        close(null)
    }
}
