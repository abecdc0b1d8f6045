// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Conveyor",
    products: [
        .library(name: "Conveyor", targets: ["Conveyor"]),
    ],
    targets: [
        // The syscalls Swift cannot call directly (variadic `syscall`, GNU-only wrappers).
        .target(name: "CConveyor"),
        .target(
            name: "Conveyor",
            dependencies: ["CConveyor"]
        ),
        // A child program for the main-queue tests (they need a real main thread).
        .executableTarget(name: "conveyor-main-queue-probe", dependencies: ["Conveyor"], path: "Sources/ConveyorMainQueueProbe"),
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor", "conveyor-main-queue-probe"]),
    ],
    swiftLanguageModes: [.v6]
)
