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
#if canImport(Glibc)
import Glibc
#endif

/// One handler call of a DispatchIO operation, as (done, byte count or nil, error).
struct IOEvent: Equatable, CustomStringConvertible, Sendable {
    let done: Bool
    let count: Int?
    let error: Int32
    init(_ done: Bool, _ count: Int?, _ error: Int32) {
        self.done = done
        self.count = count
        self.error = error
    }
    var description: String { "(\(done), \(count.map(String.init) ?? "nil"), \(error))" }
}

/// Records the handler calls of operations and cleanup handlers, and waits for them.
final class IORecorder: @unchecked Sendable {
    let events = TestLog<IOEvent>()
    let bytes = TestLog<UInt8>()
    let cleanups = TestLog<Int32>()
    private let finished = DispatchSemaphore(value: 0)
    private let cleaned = DispatchSemaphore(value: 0)

    var handler: @Sendable (Bool, DispatchData?, Int32) -> Void {
        { [self] done, data, error in
            events.append(IOEvent(done, data?.count, error))
            if let data { for byte in data { bytes.append(byte) } }
            if done { finished.signal() }
        }
    }

    var cleanup: @Sendable (Int32) -> Void {
        { [self] error in
            cleanups.append(error)
            cleaned.signal()
        }
    }

    func waitForDone() -> Bool { finished.wait(timeout: deadline()) == .success }
    func waitForCleanup() -> Bool { cleaned.wait(timeout: deadline()) == .success }
}

/// The byte at position `index` of the test files.
func patternByte(_ index: Int) -> UInt8 { UInt8(index % 251) }

/// A temporary file of `size` pattern bytes; the caller unlinks it.
func makePatternFile(size: Int, name: String = #function) -> String {
    let path = "/tmp/conveyor-io-\(getpid())-\(name.filter { $0.isLetter })-\(size)"
    let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
    precondition(fd >= 0)
    let bytes = (0..<size).map(patternByte)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, size) }
    close(fd)
    return path
}

func makePipe() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    return (fds[0], fds[1])
}

func dispatchData(_ text: String) -> DispatchData {
    Array(text.utf8).withUnsafeBytes { DispatchData(bytes: $0) }
}

/// Open descriptors of this process.
func openDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while readdir(directory) != nil { count += 1 }
    return count
}

/// Open descriptors of this process (numbers below 5000) that refer to the file at `path`.
func descriptors(openOn path: String) -> Int {
    var count = 0
    var target = [CChar](repeating: 0, count: 4096)
    for fd in 0..<5000 {
        let length = readlink("/proc/self/fd/\(fd)", &target, target.count - 1)
        if length > 0 && String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path {
            count += 1
        }
    }
    return count
}
