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

// The composition tester: generates dispatch programs from seeds, runs each against the
// library this copy was compiled with (Conveyor, or the toolchain's Dispatch: the same
// source, built twice, as the benchmark's workloads are), and checks what every correct
// GCD keeps (Checker.swift). README "Testing" and Scripts/compose.sh say how to run it.
//
//   conveyor-compose [--seconds N | --minutes N] [--first-seed S] [--liveness S] [--api swift|c]
//   conveyor-compose --seed S [--repeat R] [--only-threads 0,2]
//                                               replays one program R times (with only
//                                               some of its plain threads, to narrow it)
//
// Exit status: 0 when every program passed; 1 when some failed (each printed with its
// seed and program); 3 when one hung (printed with the state of every queue and thread;
// the run stops there, its blocks are stuck).
#if CONVEYOR
import CComposeConveyor
import Conveyor
let libraryName = "Conveyor"
// Tasks run on Conveyor's pool and timers too (on Dispatch, on its default executor).
guard ConveyorConcurrency.installGlobalExecutor() else { fatalError("Conveyor could not become the global executor") }
#else
import CComposeDispatch
import Dispatch
import Glibc
// The same binary runs under Conveyor's drop-in library (Scripts/drop-in.sh), which
// defines this marker.
let libraryName = dlsym(nil, "conveyor_drop_in") == nil ? "Dispatch" : "Dispatch under Conveyor's drop-in library"
#endif
import Glibc

/// Writes a line to standard error (failures are diagnostics; the summary goes to standard output).
@Sendable func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

@Sendable func usage(_ message: String) -> Never {
    printError("conveyor-compose: \(message)\nusage: [--seconds N | --minutes N] [--first-seed S] [--liveness S] [--api swift|c] | --seed S [--repeat R] [--only-threads I,J]")
    exit(2)
}

func value<T: LosslessStringConvertible>(_ text: String, for flag: String) -> T {
    guard let value = T(text) else { usage("bad value for \(flag): \(text)") }
    return value
}

var seconds = 10.0
var firstSeed: UInt64? = nil
var replay: UInt64? = nil
var repeats = 20
var liveness = 10.0
var onlyThreads: [Int]? = nil
var onlyAPI: Program.API? = nil
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let text = arguments.popFirst() else { usage("\(flag) needs a value") }
    switch flag {
    case "--seconds": seconds = value(text, for: flag)
    case "--minutes": seconds = (value(text, for: flag) as Double) * 60
    case "--first-seed": firstSeed = value(text, for: flag) as UInt64
    case "--seed": replay = value(text, for: flag) as UInt64
    case "--repeat": repeats = value(text, for: flag)
    case "--liveness": liveness = value(text, for: flag)
    case "--api":
        guard let api = Program.API(rawValue: text) else { usage("--api is swift or c") }
        onlyAPI = api
    case "--only-threads": onlyThreads = text.split(separator: ",").map { value(String($0), for: flag) }
    default: usage("unknown option \(flag)")
    }
}

@Sendable func report(_ program: Program, _ outcome: Runner.Outcome) -> Bool {
    switch outcome {
    case .passed:
        return true
    case let .failed(violations):
        printError("FAILED on \(libraryName): seed \(program.seed) (replay: --seed \(program.seed))\n\(program)")
        for violation in violations { printError("  violation: \(violation)") }
        return false
    case let .hung(state):
        printError("HUNG on \(libraryName): seed \(program.seed) (replay: --seed \(program.seed))\n\(state)")
        exit(3)
    }
}

/// Runs the programs (or replays one) and exits with the tester's status. On a thread of
/// its own: the main thread serves the main queue, which programs of the Swift API use.
@Sendable func drive(_ options: Options) -> Never {
    let (seconds, firstSeed, replay, repeats, liveness, onlyThreads, onlyAPI) =
        (options.seconds, options.firstSeed, options.replay, options.repeats, options.liveness, options.onlyThreads, options.onlyAPI)
    let start = monotonicNanoseconds()
    var failures: [UInt64] = []
    var programs = 0
    if let replay {
        var program = Program(seed: replay)
        if let onlyThreads { program = program.keepingThreads(onlyThreads) }
        print(program)
        for _ in 0..<repeats {
            programs += 1
            compose_crash_note_set_seed(replay)
            if !report(program, Runner(program: program, livenessSeconds: liveness).run()) { failures.append(replay) }
        }
    } else {
        let first = firstSeed ?? UInt64(truncatingIfNeeded: monotonicNanoseconds()) % 1_000_000_000
        print("composition tester on \(libraryName): seeds from \(first), \(seconds) s, liveness bound \(liveness) s")
        var seed = first
        while Double(monotonicNanoseconds() - start) / 1e9 < seconds {
            let program = Program(seed: seed)
            if let onlyAPI, program.api != onlyAPI { seed += 1; continue }
            programs += 1
            compose_crash_note_set_seed(seed)
            if !report(program, Runner(program: program, livenessSeconds: liveness).run()) {
                failures.append(seed)
                if failures.count >= 20 { break }
            }
            seed += 1
        }
    }
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    print("\(libraryName): \(programs) programs in \(Int(elapsed)) s, \(failures.count) failed\(failures.isEmpty ? "" : ": seeds \(Set(failures).sorted())")")
    exit(failures.isEmpty ? 0 : 1)
}

/// The command line's choices, handed to the driver's thread.
struct Options: Sendable {
    let seconds: Double, firstSeed: UInt64?, replay: UInt64?, repeats: Int, liveness: Double
    let onlyThreads: [Int]?, onlyAPI: Program.API?
}
let options = Options(seconds: seconds, firstSeed: firstSeed, replay: replay, repeats: repeats, liveness: liveness,
                      onlyThreads: onlyThreads, onlyAPI: onlyAPI)
// A crash prints the seed of the program it hit (the backtrace alone does not say).
compose_crash_note_install()
_ = startThread { drive(options) }
dispatchMain()
