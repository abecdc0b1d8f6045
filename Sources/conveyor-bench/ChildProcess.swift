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

import BenchCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs a workload in a fresh process: this program again, with `--child LIBRARY WORKLOAD`.
/// The child runs the workload once and prints its `Outcome` as one line on standard output,
/// which the parent reads through a pipe; the child's standard error passes through.
///
/// The parent does nothing else meanwhile (it never starts either library's threads), so a
/// child runs alone, as a user's program would.
enum ChildProcess {
    /// This executable, as the kernel knows it.
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(length > 0, "cannot read /proc/self/exe: \(String(cString: strerror(errno)))")
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Runs `workload` of `library` ("dispatch" or "conveyor") in a child and returns what it
    /// reported; a child that dies or prints no outcome line is a failure.
    /// With `preload`, the child runs with that library first in LD_PRELOAD (the drop-in
    /// column: the libdispatch build under libConveyorDropIn.so).
    static func run(library: String, workload: String, counting: Bool, arguments: [String],
                    preload: String? = nil) -> Outcome {
        var words = preloading(preload, [executable, "--child", library, workload] + arguments)
        if counting { words.append("--count-allocations") }
        guard let (output, status) = capture(words) else {
            return Outcome(failure: "cannot start a child: \(String(cString: strerror(errno)))")
        }
        if let outcome = Outcome(childOutput: output) {
            return outcome
        }
        let signal = status & 0x7f
        let why = signal != 0 ? "killed by signal \(signal)" : "exited with status \((status >> 8) & 0xff)"
        return Outcome(failure: "child process \(why) without a result")
    }

    /// `words` run with `library` first in LD_PRELOAD (through `env`), or as they are.
    static func preloading(_ library: String?, _ words: [String]) -> [String] {
        library.map { ["env", "LD_PRELOAD=" + $0] + words } ?? words
    }

    /// Runs as the child: the one workload named in `options.child`, once, from `catalog`;
    /// prints the outcome line and exits (status 0 even when the check failed: the parent
    /// reads the failure from the line).
    static func serve(_ options: Options, catalog: [Workload]) -> Never {
        let name = options.child?.workload ?? ""
        guard let workload = catalog.first(where: { $0.name == name }) else {
            Console.progress("conveyor-bench --child: no workload named '\(name)'; try --list\n")
            exit(2)
        }
        let context = RunContext(
            quick: options.quick,
            timeLimitSeconds: options.timeLimitSeconds ?? (options.quick ? 2 : 5),
            countingAllocations: options.countAllocations)
        let outcome = Outcome.runHere(workload, context)
        print(outcome.line)
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
        exit(0)
    }

    /// Runs `words` (this program's path and arguments) through /bin/sh and returns what it
    /// printed on standard output and its wait status; nil when it could not be started.
    static func capture(_ words: [String]) -> (output: String, status: Int32)? {
        guard let pipe = popen(words.map(shellQuoted).joined(separator: " "), "r") else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            output.append(contentsOf: buffer[0..<n])
        }
        let status = pclose(pipe)
        return (String(decoding: output, as: UTF8.self), status)
    }

    /// `word` in single quotes for /bin/sh.
    private static func shellQuoted(_ word: String) -> String {
        "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
