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
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor", "ConveyorListings", "conveyor-main-queue-probe"]),
    ],
    swiftLanguageModes: [.v6]
)
