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

/// The table's third column: the libdispatch build of each workload, unchanged, run in a
/// child process that preloads Conveyor's drop-in library (README, "Running any program
/// on Conveyor"). Its ratio is libdispatch / drop-in, read like the switched build's.
enum DropInColumn {
    /// The library to preload, or nil when the column is off (`--no-drop-in`, `--in-process`)
    /// or the library was not built (said on standard error, with how to build it).
    static func library(_ options: Options) -> String? {
        guard options.dropIn else { return nil }
        if options.inProcess {
            Console.progress("conveyor-bench: no drop-in column with --in-process (it needs a process of its own)\n")
            return nil
        }
        let path: String
        if let chosen = options.dropInPath {
            path = chosen
        } else {
            let executable = ChildProcess.executable
            let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? "."
            path = directory + "/libConveyorDropIn.so"
        }
        guard access(path, R_OK) == 0 else {
            Console.progress("conveyor-bench: no drop-in column: \(path) is not built (swift build -c release --product ConveyorDropIn)\n")
            return nil
        }
        return path
    }

    static let heading = "drop-in"
    static let definition =
        "drop-in = the libdispatch build, unchanged, under Conveyor's drop-in library (LD_PRELOAD); its ratio = libdispatch / drop-in"
}
