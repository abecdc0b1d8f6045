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
//                    [--thread-cap N]          (Conveyor's build: a pool of at most N threads,
//                                               so that programs reach the cap and its
//                                               reserve threads, as crowds of hundreds do)
//                    [--reserve-limit N]       (Conveyor's build: at most N reserve threads
//                                               running at once, at least 2)
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
@_spi(ConveyorTesting) import ConveyorCore
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
    printError("conveyor-compose: \(message)\nusage: [--seconds N | --minutes N] [--first-seed S] [--liveness S] [--api swift|c] [--thread-cap N] [--reserve-limit N] | --seed S [--repeat R] [--only-threads I,J]")
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
var threadCap: Int? = nil
var reserveLimit: Int? = nil
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
    case "--thread-cap":
        let cap: Int = value(text, for: flag)
        guard cap >= 2 else { usage("--thread-cap needs at least 2 (a busy poster's opener needs a thread beside it)") }
        threadCap = cap
    case "--reserve-limit":
        let limit: Int = value(text, for: flag)
        guard limit >= 2 else { usage("--reserve-limit needs at least 2 (one for jobs pushed behind, one for posts)") }
        reserveLimit = limit
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
    let (seconds, firstSeed, replay, repeats, liveness, onlyThreads, onlyAPI, capLowered) =
        (options.seconds, options.firstSeed, options.replay, options.repeats, options.liveness, options.onlyThreads, options.onlyAPI,
         options.capLowered)
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
            if !report(program, Runner(program: program, livenessSeconds: liveness, capLowered: capLowered).run()) { failures.append(replay) }
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
            if !report(program, Runner(program: program, livenessSeconds: liveness, capLowered: capLowered).run()) {
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

if threadCap != nil || reserveLimit != nil {
    #if CONVEYOR
    // Before any program submits work: threads started already would stay.
    if let threadCap {
        PoolTestingHooks.lowerThreadCap(to: threadCap)
        print("thread cap lowered to \(PoolTestingHooks.threadCap)")
    }
    if let reserveLimit {
        PoolTestingHooks.lowerReserveThreadLimit(to: reserveLimit)
        print("reserve thread limit lowered to \(PoolTestingHooks.reserveThreadLimit)")
    }
    #else
    // libdispatch has no such settings (its Linux pool's cap is fixed at build time).
    usage("--thread-cap and --reserve-limit are for Conveyor's build only")
    #endif
}

/// The command line's choices, handed to the driver's thread.
struct Options: Sendable {
    let seconds: Double, firstSeed: UInt64?, replay: UInt64?, repeats: Int, liveness: Double
    let onlyThreads: [Int]?, onlyAPI: Program.API?, capLowered: Bool
}
let options = Options(seconds: seconds, firstSeed: firstSeed, replay: replay, repeats: repeats, liveness: liveness,
                      onlyThreads: onlyThreads, onlyAPI: onlyAPI, capLowered: threadCap != nil)
// A crash prints the seed of the program it hit (the backtrace alone does not say).
compose_crash_note_install()
// The signals the `signals` op sends: ignored, so that one that arrives while no source
// watches it (a source's signal merged late, another thread's) ends nothing.
for signal in Program.testSignals { _ = Glibc.signal(signal, SIG_IGN) }
_ = startThread { drive(options) }
dispatchMain()
