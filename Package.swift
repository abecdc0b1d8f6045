// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Conveyor",
    products: [
        .library(name: "Conveyor", targets: ["Conveyor"]),
        .executable(name: "conveyor-bench", targets: ["conveyor-bench"]),
        .executable(name: "conveyor-examples", targets: ["conveyor-examples"]),
        .executable(name: "conveyor-stress", targets: ["conveyor-stress"]),
    ],
    targets: [
        // The syscalls Swift cannot call directly (variadic `syscall`, GNU-only wrappers).
        .target(name: "CConveyor"),
        // The implementation. Its public declarations are Dispatch's names; clients reach
        // them through the front module below, never by importing this one.
        .target(
            name: "ConveyorCore",
            dependencies: ["CConveyor"],
            exclude: ["Runtime/Pool/SCALING.md"]   // notes on many-core scaling, not a resource
        ),
        // The module users import: re-exports ConveyorCore, and names each top-level
        // declaration in a scoped re-export so that it wins over the toolchain's Dispatch
        // that Foundation and XCTest re-export (see Sources/Conveyor/Exports.swift).
        .target(
            name: "Conveyor",
            dependencies: ["ConveyorCore"]
        ),
        // A child program for the main-queue tests (they need a real main thread).
        .executableTarget(name: "conveyor-main-queue-probe", dependencies: ["Conveyor"], path: "Sources/ConveyorMainQueueProbe"),
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
        // Files that import Foundation and XCTest beside Conveyor, as users' files do.
        .testTarget(name: "ConveyorDropInTests", dependencies: ["Conveyor"]),
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor", "ConveyorCore", "ConveyorListings", "conveyor-main-queue-probe"]),

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
            dependencies: ["BenchCore", "BenchDispatch", "BenchConveyor"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
