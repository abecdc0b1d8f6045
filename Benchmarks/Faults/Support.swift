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

// Shared helpers of the runtime-fault scenarios (issue 11). The scenarios are one source
// compiled twice: against the toolchain's Dispatch (conveyor-faults-dispatch) and against
// Conveyor (conveyor-faults-conveyor, built with the CONVEYOR define). A run of either
// program runs one scenario and prints tab-separated `RESULT name value unit` lines;
// Benchmarks/faults.py runs both side by side, several times each, and prints the table.
#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Prints one figure of a scenario in the form faults.py parses.
func report(_ name: String, _ value: Double, _ unit: String) {
    writeLine("RESULT\t\(name)\t\(value)\t\(unit)")
}

/// Prints one non-numeric finding (yes/no, kept/lost) in the form faults.py parses.
func report(_ name: String, _ text: String) {
    writeLine("RESULT\t\(name)\t\(text)\t-")
}

/// Writes a line to standard output at once (unbuffered: a scenario may end in a trap).
func writeLine(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

/// Monotonic nanoseconds, the same clock for both libraries.
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Spins on the CPU for `milliseconds` without a system call that could block.
func compute(milliseconds: Double) {
    let end = nowNanoseconds() + UInt64(milliseconds * 1e6)
    var x: UInt64 = 1
    while nowNanoseconds() < end {
        for _ in 0..<200 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
    }
    if x == 0 { print("unreachable") }
}

/// The process's thread count, from /proc/self/status.
func threadCount() -> Int {
    let fd = open("/proc/self/status", O_RDONLY)
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return -1 }
    let text = String(decoding: buffer[..<count], as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix("Threads:") {
        return Int(line.dropFirst(8).filter { $0 != " " && $0 != "\t" }) ?? -1
    }
    return -1
}

/// The calling thread's nice value.
func threadNice() -> Int32 {
    errno = 0
    // On Linux, PRIO_PROCESS with 0 names the calling thread, not the whole process.
    return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
}

/// Starts a plain POSIX thread outside either library's pool.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_detach(thread)
}
