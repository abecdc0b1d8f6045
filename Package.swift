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
        .testTarget(name: "ConveyorTests", dependencies: ["Conveyor"]),
    ],
    swiftLanguageModes: [.v6]
)
