// swift-tools-version: 6.1
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

import PackageDescription

let package = Package(
    name: "Conveyor",
    products: [
        .library(name: "Conveyor", targets: ["Conveyor"]),
        // Between Conveyor's DispatchData and the toolchain's (README "Switching").
        .library(name: "ConveyorDispatchInterop", targets: ["ConveyorDispatchInterop"]),
        // The C API for C and C++ programs: `-I Sources/CConveyorDispatch/include` and
        // `-lConveyorDispatch` (README "C and C++").
        .library(name: "ConveyorDispatch", type: .dynamic, targets: ["CConveyorDispatch"]),
        // Conveyor as the process's libdispatch: `LD_PRELOAD=libConveyorDropIn.so program`,
        // or `conveyor-run program` (README "Running any program on Conveyor").
        .library(name: "ConveyorDropIn", type: .dynamic, targets: ["CConveyorDropIn"]),
        .executable(name: "conveyor-run", targets: ["conveyor-run"]),
        .executable(name: "conveyor-bench", targets: ["conveyor-bench"]),
        .executable(name: "conveyor-examples", targets: ["conveyor-examples"]),
        .executable(name: "conveyor-stress", targets: ["conveyor-stress"]),
        .executable(name: "conveyor-compose", targets: ["conveyor-compose"]),
        .executable(name: "conveyor-compose-dispatch", targets: ["conveyor-compose-dispatch"]),
    ],
    targets: [
        // The syscalls Swift cannot call directly (variadic `syscall`, GNU-only wrappers).
        .target(name: "CConveyor"),
        // The implementation. Its public declarations are Dispatch's names; clients reach
        // them through the front module below, never by importing this one.
        .target(
            name: "ConveyorCore",
            dependencies: ["CConveyor", "CConveyorMainThreadBridge", "CConveyorGlobalExecutor"],
            exclude: ["Runtime/Pool/SCALING.md"]   // notes on many-core scaling, not a resource
        ),
        // The C API: <dispatch/dispatch.h> (Conveyor's own headers declaring libdispatch's
        // API, each name mapped onto Conveyor's `cnv_` exports), its data symbols and its
        // block forms. The `_f` forms are Swift (Sources/ConveyorCore/CAPI).
        .target(
            name: "CConveyorDispatch",
            dependencies: ["ConveyorCore"],
            cSettings: [.unsafeFlags(["-fblocks"])],
            linkerSettings: [.linkedLibrary("BlocksRuntime")]
        ),
        // The drop-in library: the C API's implementation under libdispatch's own names too
        // (exports.ld, a linker script of aliases that Scripts/drop-in-exports.py writes),
        // reached through a forwarding table (Forwarding.S) that a program linking Conveyor
        // points at its own runtime, and stubs that stop with a message for the entry points
        // Conveyor does not provide.
        .target(
            name: "CConveyorDropIn",
            dependencies: ["CConveyorDispatch"],
            exclude: ["exports.ld", "forwarding.rsp"],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", Context.packageDirectory + "/Sources/CConveyorDropIn/exports.ld",
                // `-Xlinker --wrap=` for each runtime entry point (Scripts/runtime-entries.py):
                // the library's own calls into the runtime go through the forwarding table.
                "@" + Context.packageDirectory + "/Sources/CConveyorDropIn/forwarding.rsp",
            ])]
        ),
        // The launcher: `conveyor-run program args…` runs a program on the drop-in library.
        .executableTarget(name: "conveyor-run", path: "Sources/ConveyorRun"),
        // Swift concurrency's global-executor hooks, set on request
        // (`ConveyorConcurrency.installGlobalExecutor()`).
        .target(name: "CConveyorGlobalExecutor"),
        // Where Conveyor meets the other owners of the main thread: the concurrency
        // runtime's main-executor hooks and the toolchain's libdispatch main queue, which
        // Foundation's RunLoop drains (found by name at run time; nothing links to it); and
        // the drop-in library, which a program linking Conveyor hands its runtime to
        // (DropInAdoption.c: one runtime per process).
        .target(name: "CConveyorMainThreadBridge"),
        // The module users import: re-exports ConveyorCore, and names each top-level
        // declaration in a scoped re-export so that it wins over the toolchain's Dispatch
        // that Foundation and XCTest re-export (see Sources/Conveyor/Exports.swift).
        .target(
            name: "Conveyor",
            dependencies: ["ConveyorCore"]
        ),
        // Conversions between Conveyor's types and the toolchain's Dispatch's: imports both.
        .target(name: "ConveyorDispatchInterop", dependencies: ["Conveyor", "ConveyorCore"]),
        // A child program for the main-queue tests (they need a real main thread).
        .executableTarget(name: "conveyor-main-queue-probe", dependencies: ["Conveyor", "CConveyor", "CConveyorMainThreadBridge"], path: "Sources/ConveyorMainQueueProbe"),
        // Child programs for the main-thread hosts: an `async` main, and Foundation's RunLoop.
        .executableTarget(name: "conveyor-async-main-probe", dependencies: ["Conveyor", "CConveyor"], path: "Sources/ConveyorAsyncMainProbe"),
        .executableTarget(name: "conveyor-runloop-probe", dependencies: ["Conveyor"], path: "Sources/ConveyorRunLoopProbe"),
        // A program that links Conveyor and runs under the drop-in library: one runtime
        // (Scripts/drop-in.sh).
        .executableTarget(name: "conveyor-adoption-probe", dependencies: ["Conveyor", "CConveyor", "CConveyorMainThreadBridge"], path: "Sources/ConveyorAdoptionProbe"),
        // A child program that installs Conveyor as Swift concurrency's global executor.
        .executableTarget(name: "conveyor-global-executor-probe", dependencies: ["Conveyor"], path: "Sources/ConveyorGlobalExecutorProbe"),
        // The chapter's listings in Swift: a library so the tests can run them too, and a
        // program that runs them all (`swift run conveyor-examples`).
        .target(
            name: "ConveyorListings",
            dependencies: ["Conveyor"],
            path: "Sources/ConveyorExamples/Listings"
        ),
        .executableTarget(
            name: "conveyor-examples",
            dependencies: ["Conveyor", "ConveyorListings"],
            path: "Sources/ConveyorExamples/Program"
        ),
        // A stress / soak run (`swift run -c release conveyor-stress --seconds 20`).
        .executableTarget(name: "conveyor-stress", dependencies: ["Conveyor"], path: "Sources/ConveyorStress"),
        // The composition tester (Tester/Compose, Scripts/compose.sh): generated programs
        // checked against what every GCD keeps, compiled twice through symbolic links as the
        // workloads are, so that the same programs run on the toolchain's Dispatch too. Its
        // C API calls are one C file compiled against each library's headers.
        .target(name: "CComposeConveyor", dependencies: ["CConveyorDispatch"], cSettings: [.unsafeFlags(["-fblocks"])]),
        .target(name: "CComposeDispatch", cSettings: [.unsafeFlags(["-I/opt/swift/usr/lib/swift", "-fblocks"])],
                linkerSettings: [.linkedLibrary("BlocksRuntime")]),
        .executableTarget(
            name: "conveyor-compose",
            // ConveyorCore for its testing hooks (`--thread-cap`).
            dependencies: ["Conveyor", "ConveyorCore", "CComposeConveyor"],
            path: "Sources/ComposeConveyor",
            swiftSettings: [.define("CONVEYOR")]
        ),
        .executableTarget(name: "conveyor-compose-dispatch", dependencies: ["CComposeDispatch"], path: "Sources/ComposeDispatch"),
        // The semantics probe (Tester/Semantics): deterministic questions about the API,
        // compiled twice the same way; SemanticsDifferentialTests compares the answers.
        .executableTarget(
            name: "conveyor-semantics",
            dependencies: ["Conveyor"],
            path: "Sources/SemanticsConveyor",
            swiftSettings: [.define("CONVEYOR")]
        ),
        .executableTarget(name: "conveyor-semantics-dispatch", path: "Sources/SemanticsDispatch"),
        // Files that import Foundation and XCTest beside Conveyor, as users' files do.
        .testTarget(name: "ConveyorDropInTests", dependencies: ["Conveyor", "ConveyorDispatchInterop"]),
        .testTarget(name: "ConveyorTests", dependencies: [
            "Conveyor", "ConveyorCore", "ConveyorListings",
            "conveyor-main-queue-probe", "conveyor-async-main-probe", "conveyor-runloop-probe",
            "conveyor-global-executor-probe", "conveyor-compose",
            "conveyor-semantics", "conveyor-semantics-dispatch",
        ]),

        // MARK: Benchmark (see Benchmarks/README.md): `swift run -c release conveyor-bench`

        // Malloc counting (interposes malloc in the benchmark executable), mallinfo2, affinity.
        .target(name: "CBenchSupport"),
        // What both workload modules share; imports neither Dispatch nor Conveyor.
        .target(name: "BenchCore", dependencies: ["CBenchSupport"]),
        // Benchmarks/Workloads compiled twice: Sources/BenchDispatch/Workloads and
        // Sources/BenchConveyor/Workloads are symbolic links to that one directory; the
        // CONVEYOR define makes the second copy import Conveyor instead of Dispatch.
        .target(name: "BenchDispatch", dependencies: ["BenchCore"]),
        .target(
            name: "BenchConveyor",
            dependencies: ["BenchCore", "Conveyor"],
            swiftSettings: [.define("CONVEYOR")]
        ),
        .executableTarget(
            name: "conveyor-bench",
            // Conveyor itself for the Swift concurrency section (Sources/conveyor-bench/Concurrency).
            dependencies: ["BenchCore", "BenchDispatch", "BenchConveyor", "Conveyor"]
        ),
        // Issue 11's runtime-fault scenarios, side by side (Benchmarks/faults.py):
        // Benchmarks/Faults compiled twice through symbolic links, as the workloads are.
        .executableTarget(name: "conveyor-faults-dispatch", path: "Sources/FaultsDispatch"),
        .executableTarget(
            name: "conveyor-faults-conveyor",
            dependencies: ["Conveyor"],
            path: "Sources/FaultsConveyor",
            swiftSettings: [.define("CONVEYOR")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
