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
import Glibc

extension Program {
    /// `threads` with random-access channels on temporary files (see `inserting`).
    static func addingFileChannels(to threads: [[Op]], seed: UInt64, queues: [Queue], api: API) -> [[Op]] {
        let eligible = queues.filter { !$0.main }.map(\.index)
        return inserting(into: threads, seed: seed, salt: 0x4649_4C45_494F, percent: 15, api: api) { random in
            Op.fileChannel(queue: eligible[random.below(eligible.count)], writes: random.within(1...8),
                           chunk: [1, 100, 4_096, 20_000][random.below(4)], reads: random.within(1...4),
                           byPath: random.percent(50), barrier: random.percent(50), stopEarly: random.percent(30))
        }
    }
}

extension Runner {
    /// A random-access channel (`Program.Op.fileChannel`, DispatchIO) on a new temporary
    /// file, opened by path or on a descriptor, its handlers blocks of `q`: `writes`
    /// writes of `chunk` bytes at their own offsets, then `reads` reads (one of the whole
    /// file to its end, the others of ranges in it), issued after a `barrier` or after
    /// every write's handler ended (always, with `stopEarly`); then the channel is closed,
    /// with `.stop` at once when `stopEarly`. Every write ends once without error and nothing left; every read ends
    /// once, its pieces in order and equal to what was written there (all of it, unless a
    /// stop cancelled it: then a prefix, and ECANCELED); the cleanup handler runs once,
    /// and on a serial queue after every operation's last handler.
    func fileChannel(_ q: Int, writes: Int, chunk: Int, reads: Int, byPath: Bool, barrier: Bool, stopEarly: Bool) {
        let what = "a random-access channel\(byPath ? " by path" : "") on q\(q)"
        var template = Array("/tmp/conveyor-compose-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return checker.fail("\(what): mkstemp failed (errno \(errno))") }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let size = writes * chunk
        let record = FileChannelRecord()
        let cleanedUp = makeSemaphore(0)
        let writesEnded = makeSemaphore(0)
        let readsEnded = makeSemaphore(0)
        let checker = checker
        // The operations' last handlers and the cleanup handler are all submitted to `q`:
        // only a serial queue runs them in the order they were submitted.
        let spec = program.queues[q]
        let ordered = spec.serial && !spec.global
        checker.expect()
        let cleanup: @Sendable (Int32) -> Void = checkedHandler(q, what: "\(what): cleanup handler") { error in
            record.cleanedUp(error: error, mayFail: stopEarly, afterEveryEnd: ordered, checker, what: what)
            if !byPath { close(descriptor) }
            unlink(path)
        } after: { _ in
            checker.done()
            cleanedUp.signal()
        }
        let channel: DispatchIO
        if byPath {
            close(descriptor)
            guard let opened = DispatchIO(type: .random, path: path, oflag: O_RDWR, mode: 0, queue: queues[q], cleanupHandler: cleanup) else {
                unlink(path)
                checker.done()
                return checker.fail("\(what): DispatchIO(type: .random, path:) gave nil")
            }
            channel = opened
        } else {
            channel = DispatchIO(type: .random, fileDescriptor: descriptor, queue: queues[q], cleanupHandler: cleanup)
        }
        for index in 0..<writes {
            let bytes = (index * chunk..<(index + 1) * chunk).map(FileChannelRecord.byte(at:))
            let ended = record.operationStarted()
            checker.expect()
            channel.write(offset: off_t(index * chunk), data: bytes.withUnsafeBytes { DispatchData(bytes: $0) }, queue: queues[q],
                          ioHandler: checkedHandler(q, what: "\(what): write \(index)'s handler") { done, remaining, error in
                if ended.isSet { checker.fail("\(what): a handler of write \(index) after its end") }
                if error != 0 { checker.fail("\(what): write \(index) got error \(error)") }
                if done {
                    ended.set()
                    let left = remaining?.count ?? 0
                    if left != 0 { checker.fail("\(what): write \(index) ended with \(left) bytes not written") }
                }
            } after: { done, _, _ in if done { checker.done(); writesEnded.signal() } })
        }
        // A stop may cancel writes still under way, and the reads would then find less:
        // with `stopEarly` the reads wait for the writes' ends.
        if barrier && !stopEarly {
            channel.barrier {}
        } else {
            for _ in 0..<writes where !writesEnded.wait(Int(liveness * 1e6)) {
                return checker.fail("\(what): the writes did not all end within \(liveness) s")
            }
        }
        for index in 0..<reads {
            // The first read asks for the whole file, to its end; the others, a range.
            let start = index == 0 ? 0 : (index * 7_919) % size
            let length = index == 0 ? Int.max : min(size - start, 1 + (index * 104_729) % size)
            let expected = (start..<(index == 0 ? size : start + length)).map(FileChannelRecord.byte(at:))
            let read = ChannelPieces(expected: expected)
            let ended = record.operationStarted()
            checker.expect()
            channel.read(offset: off_t(start), length: length, queue: queues[q],
                         ioHandler: checkedHandler(q, what: "\(what): read \(index)'s handler") { done, data, error in
                if ended.isSet { checker.fail("\(what): a handler of read \(index) after its end") }
                read.append(data.map { [UInt8]($0) } ?? [], checker, what: "\(what): read \(index)")
                if done {
                    ended.set()
                    read.end(error: error, mayBeCancelled: stopEarly, checker, what: "\(what): read \(index)")
                }
            } after: { done, _, _ in if done { checker.done(); readsEnded.signal() } })
        }
        if stopEarly {
            channel.close(flags: .stop)
        } else {
            for _ in 0..<reads where !readsEnded.wait(Int(liveness * 1e6)) {
                return checker.fail("\(what): the reads did not all end within \(liveness) s")
            }
            channel.close()
        }
        if !cleanedUp.wait(Int(liveness * 1e6)) { checker.fail("\(what): no cleanup handler within \(liveness) s") }
    }
}

/// One random-access channel's operations: the cleanup handler must follow all their ends.
final class FileChannelRecord: @unchecked Sendable {
    /// One operation's end, set by its last handler.
    final class End: @unchecked Sendable {
        private let flag = Locked(false)
        var isSet: Bool { flag.withLock { $0 } }
        func set() { flag.withLock { $0 = true } }
    }
    private let operations = Locked<[End]>([])
    private let cleanups = Locked(0)

    /// The byte written at `offset` of a file.
    static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 131 &+ offset >> 8) }

    func operationStarted() -> End {
        let end = End()
        operations.withLock { $0.append(end) }
        return end
    }

    /// The cleanup handler ran with `error` (any, when a stop `mayFail` the channel).
    func cleanedUp(error: Int32, mayFail: Bool, afterEveryEnd: Bool, _ checker: Checker, what: String) {
        if cleanups.withLock({ $0 += 1; return $0 }) > 1 { checker.fail("\(what): the cleanup handler ran twice") }
        if error != 0 && !mayFail { checker.fail("\(what): the cleanup handler got error \(error)") }
        let open = operations.withLock { $0.filter { !$0.isSet }.count }
        if afterEveryEnd && open > 0 { checker.fail("\(what): the cleanup handler ran before \(open) operations ended") }
    }
}

/// What one read of a random-access channel received.
final class ChannelPieces: @unchecked Sendable {
    private let expected: [UInt8]
    private let received = Locked<[UInt8]>([])

    init(expected: [UInt8]) { self.expected = expected }

    func append(_ piece: [UInt8], _ checker: Checker, what: String) {
        received.withLock { received in
            let start = received.count
            received += piece
            if received.count > expected.count {
                checker.fail("\(what): \(received.count) bytes received, \(expected.count) asked for")
            } else if received[start...] != expected[start..<received.count] {
                checker.fail("\(what): bytes \(start)..<\(received.count) differ from what was written there")
            }
        }
    }

    /// The read's last handler ran with `error`: all of it must have come, unless a stop
    /// may have cancelled it.
    func end(error: Int32, mayBeCancelled: Bool, _ checker: Checker, what: String) {
        let count = received.withLock { $0.count }
        if mayBeCancelled && error == ECANCELED { return }
        if error != 0 { checker.fail("\(what): ended with error \(error)") }
        if count != expected.count { checker.fail("\(what): ended after \(count) bytes of \(expected.count)") }
    }
}
