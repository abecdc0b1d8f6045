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

import Conveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// "Using Dispatch Semaphores to Regulate the Use of Finite Resources":
//
//     dispatch_semaphore_t fd_sema = dispatch_semaphore_create(getdtablesize() / 2);
//     dispatch_semaphore_wait(fd_sema, DISPATCH_TIME_FOREVER);
//     fd = open("/etc/services", O_RDONLY);
//     close(fd);
//     dispatch_semaphore_signal(fd_sema);
//
// "you can use a semaphore to limit the number of file descriptors in use at any one time
// by your file-processing code."

/// How many files are open now and the most that ever were at once, kept on a serial
/// queue (the chapter's way to guard shared state).
private final class OpenFiles: @unchecked Sendable {
    private let queue = DispatchQueue(label: "com.example.open-files")
    private var now = 0
    private var most = 0

    func opened() { queue.sync { now += 1; most = max(most, now) } }
    func closed() { queue.sync { now -= 1 } }
    var peak: Int { queue.sync { most } }
}

/// Creates, writes, closes and removes one temporary file, holding its descriptor for a
/// few milliseconds so that tasks overlap. Returns whether every step succeeded.
private func processTemporaryFile(number: Int, openFiles: OpenFiles) -> Bool {
    var template = Array("/tmp/conveyor-example-\(number)-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return false }
    openFiles.opened()
    let text = Array("file \(number)\n".utf8)
    let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    usleep(20_000)   // "do your work" with the descriptor
    openFiles.closed()
    let closed = close(fd)
    let removed = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
    return written == text.count && closed == 0 && removed == 0
}

/// The semaphore example: 16 tasks on a global queue each need a file descriptor, and a
/// semaphore created with a count of 3 lets at most 3 of them hold one at a time.
public func semaphoreGuardsFileDescriptors(_ transcript: Transcript) {
    transcript.say("Dispatch semaphores: regulating a finite resource (file descriptors)")
    let limit = 3
    let taskCount = 16
    transcript.say("  getdtablesize() / 2 = \(getdtablesize() / 2); this listing allows \(limit) open files")
    let fdSema = DispatchSemaphore(value: limit)
    let openFiles = OpenFiles()
    let failures = Atomic<Int>(0)
    let group = DispatchGroup()

    for number in 0..<taskCount {
        DispatchQueue.global().async(group: group) {
            fdSema.wait()   // wait for a free file descriptor
            if !processTemporaryFile(number: number, openFiles: openFiles) {
                failures.add(1, ordering: .relaxed)
            }
            fdSema.signal()   // release the file descriptor when done
        }
    }
    let result = group.wait(timeout: listingDeadline())

    let most = openFiles.peak
    transcript.say("  \(taskCount) tasks each opened, wrote, closed and removed a temporary file")
    transcript.say("  most files open at once: \(most)")
    transcript.check(result == .success, "all \(taskCount) tasks finished")
    transcript.check(failures.load(ordering: .relaxed) == 0, "every open, write, close and unlink succeeded")
    transcript.check(most <= limit, "the semaphore kept open files at or under \(limit)")
}
