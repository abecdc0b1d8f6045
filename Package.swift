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
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor", "ConveyorListings"]),
    ],
    swiftLanguageModes: [.v6]
)
