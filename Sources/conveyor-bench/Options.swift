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

/// The command line of `conveyor-bench`, parsed by hand (no dependency beyond the toolchain).
struct Options: Sendable {
    var runs = 5
    var only: [String] = []
    var jsonPath: String?
    var svgPath: String?
    var markdownPath: String?
    var list = false
    /// Run both libraries in this one process, interleaved (the old mode), not in children.
    var inProcess = false
    /// Set in a child process: which library's module and which workload to run once.
    var child: (library: String, workload: String)?
    /// Set in a child process of the Swift concurrency section: which setup and workload.
    var concurrencyChild: (setup: String, workload: String)?
    /// In a child: count allocation calls over the measured region instead of timing it.
    var countAllocations = false
    var quick = false
    var help = false
    /// Seconds a workload that can hang (blocking fan-out) waits before giving up.
    var timeLimitSeconds: Double?
    /// Threads this process keeps burning CPU for the whole run of both libraries (`--load`):
    /// a busy machine, as servers run. 0: a quiet run.
    var loadThreads = 0
    /// The drop-in column (`--no-drop-in` turns it off; `--drop-in PATH` names the library).
    var dropIn = true
    var dropInPath: String?

    /// Where the chart goes when `--svg` is not given (the folder SwiftPM already ignores).
    static let defaultChartPath = ".build/conveyor-bench.svg"

    static let usage = """
        USAGE: conveyor-bench [options]

        Runs every workload against the toolchain's Dispatch (libdispatch) and against
        Conveyor and prints medians side by side. Each measured run of each library is a
        fresh child process (this program run again with --child), as users run programs.

        OPTIONS:
          --runs N            measured runs per workload and library after one warm-up (default 5)
          --only NAME         run only workloads whose name contains NAME (repeatable)
          --json PATH         also write the results as JSON to PATH
          --svg PATH          write the SVG bar chart of the ratios to PATH
                              (default: .build/conveyor-bench.svg)
          --markdown PATH     also write the table as Markdown (README's format) to PATH
          --in-process        run both libraries in this one process, interleaved, after a
                              warm-up each (the old mode; slower and noisier than alone)
          --list              list the workloads and exit
                              (the Swift concurrency workloads follow the table:
                              task-group-fan-out, actor-ping-pong, task-sleep-lateness)
          --quick             smaller sizes (CI smoke test, under a minute)
          --time-limit SECS   give up on a hanging workload after SECS (default 5; 2 with --quick)
          --load N            keep N threads burning CPU at normal priority for the whole run of
                              both libraries, a busy machine (N: a number, `cpus` for one per CPU,
                              `2cpus` for two per CPU)
          --drop-in PATH      the drop-in library for the third column (default:
                              libConveyorDropIn.so beside this executable, if built:
                              swift build -c release --product ConveyorDropIn)
          --no-drop-in        leave out the third column (the libdispatch build run
                              unchanged under Conveyor's drop-in library)
          -h, --help          show this help
        """

    /// Parses `arguments` (without the program name); throws a message for bad input.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            // Accept --flag=value as well as --flag value.
            var flag = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                rest.insert(String(argument[argument.index(after: equals)...]), at: rest.startIndex)
            }
            switch flag {
            case "--runs":
                let text = try value(for: flag)
                guard let runs = Int(text), runs >= 1 else { throw UsageError("--runs needs a positive integer, not '\(text)'") }
                options.runs = runs
            case "--only": options.only.append(try value(for: flag))
            case "--json": options.jsonPath = try value(for: flag)
            case "--svg": options.svgPath = try value(for: flag)
            case "--markdown": options.markdownPath = try value(for: flag)
            case "--in-process": options.inProcess = true
            case "--drop-in": options.dropInPath = try value(for: flag)
            case "--no-drop-in": options.dropIn = false
            case "--child":
                let library = try value(for: flag)
                guard library == "dispatch" || library == "conveyor" else {
                    throw UsageError("--child needs dispatch or conveyor, not '\(library)'")
                }
                options.child = (library, try value(for: flag))
            case "--concurrency-child":
                options.concurrencyChild = (try value(for: flag), try value(for: flag))
            case "--count-allocations": options.countAllocations = true
            case "--list": options.list = true
            case "--quick": options.quick = true
            case "--time-limit":
                let text = try value(for: flag)
                guard let seconds = Double(text), seconds > 0 else { throw UsageError("--time-limit needs seconds > 0, not '\(text)'") }
                options.timeLimitSeconds = seconds
            case "--load":
                let text = try value(for: flag)
                switch text {
                case "cpus": options.loadThreads = Machine.cpuCount
                case "2cpus": options.loadThreads = 2 * Machine.cpuCount
                default:
                    guard let threads = Int(text), threads >= 0 else {
                        throw UsageError("--load needs a number of threads, cpus or 2cpus, not '\(text)'")
                    }
                    options.loadThreads = threads
                }
            case "-h", "--help": options.help = true
            default: throw UsageError("unknown argument '\(argument)'")
            }
        }
        return options
    }

    /// The options a child process needs to run one workload as this run would (sizes and
    /// time limit), as command-line arguments.
    var childArguments: [String] {
        var arguments: [String] = []
        if quick { arguments.append("--quick") }
        if let timeLimitSeconds { arguments += ["--time-limit", "\(timeLimitSeconds)"] }
        return arguments
    }

    /// Whether the workload named `name` was selected by `--only` (all are by default).
    func selects(_ name: String) -> Bool {
        only.isEmpty || only.contains { name.lowercased().contains($0.lowercased()) }
    }
}

/// A command-line mistake, reported with the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
