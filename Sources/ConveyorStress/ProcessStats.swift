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

#if canImport(Glibc)
import Glibc
#endif

/// What the process holds that a leak would grow: threads, open file descriptors and
/// resident memory, read from `/proc/self`.
struct ProcessStats: CustomStringConvertible {
    var threads: Int
    var fds: Int
    var rssBytes: Int

    static func current() -> ProcessStats {
        ProcessStats(threads: threadCount(), fds: fdCount(), rssBytes: residentBytes())
    }

    var description: String {
        "threads \(threads), fds \(fds), RSS \(rssBytes / 1024) KiB"
    }

    /// The `Threads:` line of `/proc/self/status`.
    static func threadCount() -> Int {
        for line in readFile("/proc/self/status").split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingSpaces()) ?? -1
        }
        return -1
    }

    /// Entries of `/proc/self/fd` (the directory's own fd included, the same each time).
    static func fdCount() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count
    }

    /// The resident set: the second field of `/proc/self/statm`, in pages.
    static func residentBytes() -> Int {
        let fields = readFile("/proc/self/statm").split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    private static func readFile(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
    }
}
