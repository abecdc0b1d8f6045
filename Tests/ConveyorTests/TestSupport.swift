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
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A generous deadline for tests that wait on other threads: long enough never to fire on
/// a loaded 2-core machine, short enough that a lost wake-up fails the test instead of
/// hanging CI.
func deadline(seconds: Int = 30) -> DispatchTime { .now() + .seconds(seconds) }

/// A thread-safe log for tests. It is guarded by Conveyor's `FutexLock`, whose hand-offs
/// ThreadSanitizer sees (`Mutex`'s kernel hand-off under contention it does not).
final class TestLog<Element: Sendable>: @unchecked Sendable {
    private let lock = FutexLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var values: [Element] { lock.withLock { storage } }
    var count: Int { lock.withLock { storage.count } }
}

/// What the child process of an exit test has said, for its parent. The parent sees the
/// child's standard output only when the child exits as expected (`#expect(processExitsWith:)`
/// returns nil otherwise), so a failing child's account of itself would be lost: `say`
/// prints a line and keeps it, and `finishChild(false)` hands every kept line to the
/// parent as an issue (Swift Testing forwards issues a child records) before exiting 1.
private let childReport = TestLog<String>()

/// Prints `line` and keeps it for `finishChild`'s report.
func say(_ line: String) {
    print(line)
    childReport.append(line)
}

/// Ends an exit test's child: exit code 0 if it `passed`; else records what it said as an
/// issue, which reaches the parent, and exits 1.
func finishChild(_ passed: Bool) -> Never {
    if !passed {
        Issue.record(Comment(rawValue: "the child process said:\n" + childReport.values.joined(separator: "\n")))
    }
    exit(passed ? 0 : 1)
}

final class Counter: @unchecked Sendable {
    let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var current: Int { value.load(ordering: .relaxed) }
}

/// A flag one thread sets and others poll (release/acquire).
final class AtomicFlagBox: @unchecked Sendable {
    private let flag = Atomic<Bool>(false)
    var value: Bool { flag.load(ordering: .acquiring) }
    func set(_ value: Bool) { flag.store(value, ordering: .releasing) }
}

/// The kernel id of the calling thread.
func currentThreadID() -> Int32 { ThreadInfo.currentID }

/// Spins (politely) until `condition` holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let end = DispatchTime.now() + seconds
    while DispatchTime.now() < end {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

// MARK: - Timing, threads, and exit-test children

func elapsedNanoseconds(since start: DispatchTime) -> UInt64 {
    DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
}

/// A short CPU pause (tens of nanoseconds) for spin-waits and jitter loops.
@inline(__always)
func spinPause() { cnv_cpu_relax() }

/// The child's standard error from an exit test, as text.
func standardError(of result: ExitTest.Result?) -> String {
    guard let result else { return "" }
    return String(decoding: result.standardErrorContent, as: UTF8.self)
}

/// Marks the report of an exit-test child that failed a check (`exitReportingFailure`).
let childFailureMark = "child failed: "

/// Ends an exit-test child that failed a check, after writing `report` to standard error
/// behind `childFailureMark`. With exit status 0: Swift Testing gives back a child's output
/// only when its exit status is the expected one (`.success`), so the parent finds the
/// report there (`expectNoFailureReport`); a failing status would lose it.
func exitReportingFailure(_ report: String) -> Never {
    writeToStandardError(childFailureMark + report + "\n")
    exit(0)
}

/// Fails the test with the report of a child that ended with `exitReportingFailure`.
func expectNoFailureReport(_ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let result else { return }   // the exit status was not the expected one: an issue already
    let output = standardError(of: result)
    #expect(!output.contains(childFailureMark), "\(output)", sourceLocation: sourceLocation)
}

/// Writes `text` to standard error (for exit-test children to report through).
func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// For exit-test children that could hang if the code under test is broken: ends the
/// child with exit code 9 (and says so) after `seconds`, so the test fails instead of
/// hanging the run.
func exitIfStillRunning(after seconds: Int) {
    _ = TestThread {
        let end = DispatchTime.now() + .seconds(seconds)
        while DispatchTime.now() < end { usleep(10_000) }
        writeToStandardError("child still running after \(seconds) s: giving up\n")
        _exit(9)
    }
}

/// A plain thread (not a pool worker) running `body`; `join()` waits for it.
final class TestThread: @unchecked Sendable {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private var handle = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&handle, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    func join() { pthread_join(handle, nil) }
}

/// Reads a small text file (from /proc) in full, or nil.
func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    if fd < 0 { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The nice value of the thread that ran one block on `queue`, or nil when the block did
/// not run within `deadline()`.
func niceOfABlock(on queue: DispatchQueue) -> Int32? {
    let seen = Atomic<Int32>(-100)
    let done = DispatchSemaphore(value: 0)
    queue.async {
        seen.store(ThreadInfo.nice, ordering: .relaxed)
        done.signal()
    }
    guard done.wait(timeout: deadline()) == .success else { return nil }
    return seen.load(ordering: .relaxed)
}

/// This process's threads, as kernel id and name, from /proc/self/task.
func processThreads() -> [(id: Int32, name: String)] {
    guard let directory = opendir("/proc/self/task") else { return [] }
    defer { closedir(directory) }
    var found: [(id: Int32, name: String)] = []
    while let entry = readdir(directory) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        guard let id = Int32(tid), let comm = readTextFile("/proc/self/task/\(tid)/comm") else { continue }
        found.append((id, comm.hasSuffix("\n") ? String(comm.dropLast()) : comm))
    }
    return found
}

/// Drops root to the user nobody, as `setpriv --reuid=nobody` would: the first step of a
/// child process that tests what an unprivileged program gets. Returns false if it could
/// not (a process that is not root is left as it is).
func dropRootToNobody() -> Bool {
    guard geteuid() == 0 else { return true }
    _ = setgroups(0, nil)
    return setgid(65534) == 0 && setuid(65534) == 0
}

/// The scheduler state letter of a thread of this process ("R", "S", "D", ...), or "".
func threadState(_ tid: Int32) -> String {
    guard tid != 0, let stat = readTextFile("/proc/self/task/\(tid)/stat"),
          let close = stat.lastIndex(of: ")") else { return "" }
    let rest = stat[stat.index(after: close)...].drop(while: { $0 == " " })
    return rest.first.map { String($0) } ?? ""
}
