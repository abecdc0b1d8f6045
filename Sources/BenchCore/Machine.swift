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

import CBenchSupport
#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine and toolchain that a result table must carry to mean anything.
public enum Machine {
    /// CPUs this process may run on (its affinity mask, as `taskset` sets it).
    public static let cpuCount = Int(cbs_cpu_count())

    /// The "model name" line of /proc/cpuinfo, or "unknown CPU".
    public static let cpuModel: String = {
        guard let text = readTextFile("/proc/cpuinfo") else { return "unknown CPU" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
            }
        }
        return "unknown CPU"
    }()

    /// Kernel name and release, from uname(2).
    public static let kernel: String = {
        var info = utsname()
        guard uname(&info) == 0 else { return "unknown kernel" }
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        return "\(field(info.sysname)) \(field(info.release)) \(field(info.machine))"
    }()

    /// Threads in this process right now (from /proc/self/status), or -1.
    public static var threadCount: Int { Int(cbs_thread_count()) }

    /// Context switches of every thread of this process so far (live or exited; voluntary
    /// plus involuntary, from getrusage), or -1. A voluntary switch is a thread going to sleep,
    /// so each one is followed by a wake-up: differences of this count measure wake-ups.
    public static var contextSwitches: Int { Int(cbs_context_switches()) }

    /// Threads the process had when the harness started (it reads this first thing).
    public static let threadsAtLaunch = threadCount

    /// Sleeps until the process has no more threads than at launch, that is until the idle
    /// pool threads that earlier workloads left behind have exited, but at most `maxSeconds`.
    /// Returns the thread count it stopped at.
    @discardableResult
    public static func waitForPoolThreadsToExit(maxSeconds: Double) -> Int {
        let deadline = BenchClock.now() + UInt64(maxSeconds * 1e9)
        var count = threadCount
        while count > threadsAtLaunch, BenchClock.now() < deadline {
            BenchClock.sleep(nanoseconds: 50_000_000)
            count = threadCount
        }
        return count
    }

    /// The machine's one-minute load average (/proc/loadavg), or nil: on a shared machine,
    /// how much other work competed with the benchmark.
    public static var loadAverage: Double? {
        guard let text = readTextFile("/proc/loadavg"), let first = text.split(separator: " ").first else { return nil }
        return Double(first)
    }

    /// The Swift compiler version this harness was built with.
    public static let swiftVersion: String = compilerVersion
}

/// Reads a whole (small) text file, such as a /proc file, or returns nil.
public func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
