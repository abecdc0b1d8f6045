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
import BenchCore
#if canImport(Glibc)
import Glibc
#endif

// DispatchIO and DispatchData workloads (self-contained: the file, the child process and
// the RSS probe are made here). Throughput is reported as ns per MiB (lower is better):
// 1,000,000,000 / value = MiB/s. `cat FILE > /dev/null` on the same file is the ceiling.

extension Catalog {
    /// Reading a large file through a random channel (offset 0, to the end of the file).
    static let ioFileRandom = ioFileWorkload(name: "io-file-random", type: .random)
    /// Reading a large file through a stream channel.
    static let ioFileStream = ioFileWorkload(name: "io-file-stream", type: .stream)

    private static func ioFileWorkload(name: String, type: DispatchIO.StreamType) -> Workload {
        let isRandom = type == .random
        return Workload(
            name: name,
            summary: "read a 1 GiB file (page-cached) through a \(isRandom ? "random" : "stream") channel; ns per MiB, peak RSS growth, throughput as % of `cat FILE > /dev/null` timed right after",
            metrics: [MetricSpec("ns/MiB", unit: .nanosecondsPerOp), MetricSpec("peak RSS growth", unit: .bytes),
                      MetricSpec("% of cat", unit: .percent, higherIsBetter: true)]
        ) { context in
            let size = context.size(1 << 30, quick: 64 << 20)
            let path = IOBenchFiles.file(size: size)
            let fd = open(path, O_RDONLY)
            try check(fd >= 0, "\(name): cannot open \(path)")
            defer { close(fd) }
            IOBenchFiles.readAhead(fd: fd, size: size)
            let baseline = IOBenchFiles.resetPeakRSS()
            let result = IOBenchFiles.readAll(fd: fd, type: isRandom ? .random : .stream, timeLimit: context.timeLimitSeconds)
            let peak = IOBenchFiles.peakRSS()
            try check(result.error == 0, "\(name): error \(result.error)")
            try check(result.bytes == size, "\(name): read \(result.bytes) of \(size) bytes")
            let ceiling = try IOBenchFiles.timeShell("cat '\(path)' > /dev/null")
            return [Double(result.nanoseconds) / Double(size >> 20), Double(max(peak - baseline, 0)),
                    100 * Double(ceiling) / Double(result.nanoseconds)]
        }
    }

    /// A child process writing 1 MiB blocks into a pipe; the parent reads them through a
    /// stream channel.
    static let ioPipe = Workload(
        name: "io-pipe",
        summary: "a child (dd bs=1M) writes 512 MiB into a pipe read by a stream channel; ns per MiB, throughput as % of the same dd piped into `cat > /dev/null`, timed right after",
        metrics: [MetricSpec(unit: .nanosecondsPerOp), MetricSpec("% of cat", unit: .percent, higherIsBetter: true)]
    ) { context in
        let mebibytes = context.size(512, quick: 64)
        var fds: [Int32] = [0, 0]
        try check(pipe(&fds) == 0, "io-pipe: pipe failed")
        let start = BenchClock.now()
        let child = IOBenchFiles.spawnWriter(mebibytes: mebibytes, stdout: fds[1])
        close(fds[1])
        try check(child > 0, "io-pipe: cannot start dd")
        let result = IOBenchFiles.readAll(fd: fds[0], type: .stream, timeLimit: context.timeLimitSeconds * 4, startedAt: start)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        close(fds[0])
        try check(result.error == 0, "io-pipe: error \(result.error)")
        try check(result.bytes == mebibytes << 20, "io-pipe: read \(result.bytes) of \(mebibytes << 20) bytes")
        let ceiling = try IOBenchFiles.timeShell(
            "dd if=/dev/zero bs=1M count=\(mebibytes) status=none iflag=fullblock | cat > /dev/null")
        return [Double(result.nanoseconds) / Double(mebibytes), 100 * Double(ceiling) / Double(result.nanoseconds)]
    }

    /// Appending many small pieces of bytes to one DispatchData (one new region each).
    static let dataAppend = Workload(
        name: "data-append",
        summary: "1M appends of 16 bytes to one DispatchData (a region each); ns per append",
        metrics: [MetricSpec(unit: .nanosecondsPerOp)]
    ) { context in
        let count = context.size(1_000_000, quick: 100_000)
        let limit = UInt64(context.timeLimitSeconds * 1e9)
        var bytes = [UInt8](repeating: 7, count: 16)
        var data = DispatchData.empty
        let start = BenchClock.now()
        for index in 0..<count {
            bytes[0] = UInt8(truncatingIfNeeded: index)
            bytes.withUnsafeBytes { data.append($0) }
            if index & 1023 == 0 && BenchClock.now() - start > limit {
                throw WorkloadError.timedOut(seconds: context.timeLimitSeconds,
                                             detail: "\(index) of \(count) appends (each copies the region list)")
            }
        }
        let ns = BenchClock.now() - start
        try check(data.count == count * 16, "data-append: \(data.count) bytes")
        try check(data[16 * (count - 1)] == UInt8(truncatingIfNeeded: count - 1), "data-append: wrong byte")
        return [Double(ns) / Double(count)]
    }
}

/// Files, processes and memory probes of the I/O workloads.
enum IOBenchFiles {
    /// A file of `size` bytes under /tmp, written once and reused by later runs.
    static func file(size: Int) -> String {
        let path = "/tmp/conveyor-bench-io-\(size).bin"
        var status = stat()
        if stat(path, &status) == 0 && Int(status.st_size) == size { return path }
        let fd = open(path + ".part", O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        let chunk = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var written = 0
        while written < size {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, min($0.count, size - written)) }
            if n <= 0 { break }
            written += n
        }
        close(fd)
        rename(path + ".part", path)
        return path
    }

    /// Reads the file once so that both libraries read it from the page cache.
    static func readAhead(fd: Int32, size: Int) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < size {
            let n = pread(fd, buffer, 1 << 20, off_t(offset))
            if n <= 0 { break }
            offset += n
        }
    }

    struct ReadResult {
        var bytes = 0
        var error: Int32 = 0
        var nanoseconds: UInt64 = 0
    }

    /// Reads `fd` to its end through a channel of `type`; handlers run on a serial queue
    /// and only count the bytes.
    static func readAll(fd: Int32, type: DispatchIO.StreamType, timeLimit: Double, startedAt: UInt64? = nil) -> ReadResult {
        let handlers = DispatchQueue(label: "bench.io.handlers")
        let finished = DispatchSemaphore(value: 0)
        let cleaned = DispatchSemaphore(value: 0)
        let state = Guarded(ReadResult())
        let start = startedAt ?? BenchClock.now()
        let channel = DispatchIO(type: type, fileDescriptor: fd, queue: handlers) { _ in cleaned.signal() }
        channel.read(offset: 0, length: Int.max, queue: handlers) { done, data, error in
            state.value.bytes += data?.count ?? 0
            if done {
                state.value.error = error
                state.value.nanoseconds = BenchClock.now() - start
                finished.signal()
            }
        }
        let deadline = DispatchTime.now() + .milliseconds(Int(timeLimit * 1000))
        if finished.wait(timeout: deadline) == .timedOut {
            channel.close(flags: .stop)
            _ = finished.wait(timeout: .now() + 5)
            _ = cleaned.wait(timeout: .now() + 5)
            return ReadResult(bytes: state.value.bytes, error: ETIMEDOUT, nanoseconds: 0)
        }
        channel.close()
        _ = cleaned.wait(timeout: .now() + 5)
        return state.value
    }

    /// Starts `dd if=/dev/zero bs=1M count=N` writing to `stdout`; returns its pid (or -1).
    static func spawnWriter(mebibytes: Int, stdout: Int32) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        let arguments = ["dd", "if=/dev/zero", "bs=1M", "count=\(mebibytes)", "status=none", "iflag=fullblock"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = -1
        let rc = posix_spawnp(&pid, "dd", &actions, nil, &argv, environ)
        return rc == 0 ? pid : -1
    }

    /// Runs `command` with `/bin/sh -c` and returns its wall time in nanoseconds: the
    /// ceiling the I/O workloads compare themselves with, measured in the same process run
    /// (these shared machines vary too much from one minute to the next for a constant).
    static func timeShell(_ command: String) throws -> UInt64 {
        let arguments = ["sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = -1
        let start = BenchClock.now()
        try check(posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0, "cannot run sh -c \(command)")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let elapsed = BenchClock.now() - start
        try check(status == 0, "sh -c \(command) failed (status \(status))")
        return elapsed
    }

    /// Resets the kernel's peak RSS of this process and returns the current RSS in bytes.
    static func resetPeakRSS() -> Int {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        if fd >= 0 {
            _ = write(fd, "5", 1)
            close(fd)
        }
        return statusField("VmRSS:")
    }

    /// The peak RSS since the last reset, in bytes.
    static func peakRSS() -> Int { statusField("VmHWM:") }

    private static func statusField(_ name: String) -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(name) {
                let digits = text.dropFirst(name.count).filter { $0.isNumber }
                return (Int(digits) ?? 0) * 1024
            }
        }
        return 0
    }
}
