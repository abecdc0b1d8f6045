// swift-tools-version: 6.1
import PackageDescription

/// The one switch of the side-by-side benchmark (`swift run -c release conveyor-bench`).
/// While false, its "Conveyor" column is the very same workload source compiled against the
/// toolchain's Dispatch: a plumbing check whose ratios should all be about 1.0. Set it to
/// true once Conveyor implements Dispatch's API; the BenchConveyor module then imports
/// Conveyor instead of Dispatch.
let benchmarkAgainstConveyor = false

let package = Package(
    name: "Conveyor",
    products: [
        .library(name: "Conveyor", targets: ["Conveyor"]),
        .executable(name: "conveyor-bench", targets: ["conveyor-bench"]),
    ],
    targets: [
        // The syscalls Swift cannot call directly (variadic `syscall`, GNU-only wrappers).
        .target(name: "CConveyor"),
        .target(
            name: "Conveyor",
            dependencies: ["CConveyor"]
        ),
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor"]),

        // MARK: Benchmark (see Benchmarks/README.md)

        // Malloc counting (interposes malloc in the benchmark executable), mallinfo2, affinity.
        .target(name: "CBenchSupport"),
        // What both workload modules share; imports neither Dispatch nor Conveyor.
        .target(name: "BenchCore", dependencies: ["CBenchSupport"]),
        // Benchmarks/Workloads compiled twice: Sources/BenchDispatch/Workloads and
        // Sources/BenchConveyor/Workloads are symbolic links to that one directory.
        .target(name: "BenchDispatch", dependencies: ["BenchCore"]),
        .target(
            name: "BenchConveyor",
            dependencies: ["BenchCore", "Conveyor"],
            swiftSettings: benchmarkAgainstConveyor ? [.define("CONVEYOR")] : []
        ),
        .executableTarget(
            name: "conveyor-bench",
            dependencies: ["BenchCore", "BenchDispatch", "BenchConveyor"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
