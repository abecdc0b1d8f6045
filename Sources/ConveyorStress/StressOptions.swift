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

/// The command line of `conveyor-stress`: how long to run, with which seed, on how many
/// producer threads.
struct StressOptions {
    var seconds: Double = 20
    var seed: UInt64 = UInt64(truncatingIfNeeded: time(nil))
    var producers: Int = 4
    /// Whether to wait (up to `idleWaitSeconds`) for idle workers to exit before comparing
    /// the thread count with the baseline; without it, the looser bound applies at once.
    var waitForIdleWorkers = false
    var idleWaitSeconds: Double = 15

    static let usage = """
        usage: conveyor-stress [--seconds N | --minutes N] [--seed N] [--producers N] [--wait-idle]
          --seconds N    run for N seconds (default 20)
          --minutes N    run for N minutes (a soak; implies --wait-idle)
          --seed N       seed of the operation mix (default: the time)
          --producers N  producer threads (default 4)
          --wait-idle    after the run, wait for idle workers to exit (Conveyor: 10 s)
        """

    /// Parses `arguments` (without the program name); prints usage and exits on errors.
    static func parse(_ arguments: [String]) -> StressOptions {
        var options = StressOptions()
        var rest = arguments[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--seconds":
                guard let n = Double(value(flag)), n > 0 else { fail("bad --seconds") }
                options.seconds = n
            case "--minutes":
                guard let n = Double(value(flag)), n > 0 else { fail("bad --minutes") }
                options.seconds = n * 60
                options.waitForIdleWorkers = true
            case "--seed":
                guard let n = UInt64(value(flag)) else { fail("bad --seed") }
                options.seed = n
            case "--producers":
                guard let n = Int(value(flag)), n > 0, n <= 64 else { fail("bad --producers") }
                options.producers = n
            case "--wait-idle":
                options.waitForIdleWorkers = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown option \(flag)")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        print("conveyor-stress: \(message)\n\(usage)")
        exit(2)
    }
}
