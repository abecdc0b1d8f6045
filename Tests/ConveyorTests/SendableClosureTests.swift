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

import Glibc
import Testing

/// Closures Conveyor may run on another thread are `@Sendable` (declared
/// `@preconcurrency`, as Apple's SDK declares them): a closure written on the main actor
/// that touches main-actor state and is handed to one of them is diagnosed at compile
/// time, and Swift 5-mode code keeps compiling (issue 25, finding 5). Before, these
/// closures were neither `@Sendable` nor `sending`, and as Conveyor is compiled in Swift 6
/// mode the compiler inserted no run-time isolation check either: such a closure ran on a
/// worker thread silently.
///
/// The compiler's `@preconcurrency` rule makes the diagnostic a warning in every mode (an
/// error would break Swift 5 code that notifies on `.main`); a test compiles a client file
/// against the built modules and reads the diagnostics.
@Suite struct SendableClosureTests {
    /// One line per API that runs a closure elsewhere; each touches main-actor state.
    static let client = """
        import Conveyor
        import Glibc

        @MainActor final class Model { var count = 0 }

        @MainActor func wire(_ model: Model, _ group: DispatchGroup, _ io: DispatchIO) {
            group.notify(queue: .global()) { model.count += 1 }                               // line 7
            let item = DispatchWorkItem { model.count += 1 }                                  // line 8
            item.notify(queue: .global()) { model.count += 1 }                                // line 9
            let source = DispatchSource.makeTimerSource(queue: .global())
            source.setEventHandler { model.count += 1 }                                       // line 11
            source.setCancelHandler { model.count += 1 }                                      // line 12
            io.read(offset: 0, length: 1, queue: .global()) { _, _, _ in model.count += 1 }   // line 13
            io.barrier { model.count += 1 }                                                   // line 14
            _ = DispatchIO(type: .stream, fileDescriptor: 0, queue: .global()) { _ in model.count += 1 }  // line 15
            DispatchIO.read(fromFileDescriptor: 0, maxLength: 1, runningHandlerOn: .global()) { _, _ in model.count += 1 }  // line 16
            DispatchQueue.global().async { model.count += 1 }                                 // line 17
        }
        """
    static let diagnosedLines = [7, 8, 9, 11, 12, 13, 14, 15, 16, 17]

    @Test(arguments: ["6", "5"])
    func aMainActorClosureHandedToAnotherThreadIsDiagnosed(swiftVersion: String) throws {
        let result = try typecheck(Self.client, swiftVersion: swiftVersion)
        #expect(result.status == 0, "Swift \(swiftVersion)-mode code must keep compiling:\n\(result.output)")
        for line in Self.diagnosedLines {
            #expect(result.output.contains("client.swift:\(line):") && result.output.contains("Sendable closure"),
                    "line \(line) is not diagnosed in Swift \(swiftVersion) mode:\n\(result.output)")
        }
    }

    /// Type-checks `source` against the modules of this build; the exit status and the
    /// compiler's output.
    func typecheck(_ source: String, swiftVersion: String) throws -> (status: Int32, output: String) {
        let build = try testBuildDirectory()
        let directory = "/tmp/conveyor-sendable-\(getpid())-\(swiftVersion)"
        mkdir(directory, 0o755)
        let file = directory + "/client.swift"
        guard let handle = fopen(file, "w") else { throw ProbeError(message: "cannot write \(file)") }
        fputs(source, handle)
        fclose(handle)
        // The C modules ConveyorCore imports: their module maps are in the build folder.
        var moduleMaps: [String] = []
        if let entries = opendir(build) {
            while let entry = readdir(entries) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let map = "\(build)/\(name)/module.modulemap"
                if name.hasSuffix(".build"), access(map, R_OK) == 0 { moduleMaps += ["-Xcc", "-fmodule-map-file=\(map)"] }
            }
            closedir(entries)
        }
        let swiftc = access("/opt/swift/usr/bin/swiftc", X_OK) == 0 ? "/opt/swift/usr/bin/swiftc" : "swiftc"
        let command = ([swiftc, "-typecheck", "-swift-version", swiftVersion, "-I", "\(build)/Modules"] + moduleMaps + [file])
            .map { "'\($0)'" }.joined(separator: " ") + " 2>&1"
        guard let pipe = popen(command, "r") else { throw ProbeError(message: "popen failed") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(pipe)
        unlink(file)
        rmdir(directory)
        return ((status >> 8) & 0xff, output)
    }
}
