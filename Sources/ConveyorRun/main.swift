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

#if canImport(Glibc)
import Glibc
#endif

// conveyor-run: runs a program on Conveyor's drop-in libdispatch.
//
//     conveyor-run program [arguments…]
//
// It puts libConveyorDropIn.so (found beside this executable, as SwiftPM builds both, or
// at $CONVEYOR_DROP_IN) first in LD_PRELOAD and executes the program in its place, so the
// program, and every program it starts that inherits the environment, binds its dispatch
// calls to Conveyor (README, "Running any program on Conveyor").

func fail(_ message: String, status: Int32 = 127) -> Never {
    let text = "conveyor-run: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

/// The directory of this executable (from /proc/self/exe).
func executableDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return String(path[..<slash])
}

let arguments = CommandLine.arguments
if arguments.count < 2 || arguments[1] == "--help" || arguments[1] == "-h" {
    print("usage: conveyor-run program [arguments…]\nRuns the program with Conveyor as its libdispatch (LD_PRELOAD of libConveyorDropIn.so; $CONVEYOR_DROP_IN names another copy).")
    exit(arguments.count < 2 ? 2 : 0)
}

var library: String
if let chosen = getenv("CONVEYOR_DROP_IN") {
    library = String(cString: chosen)
    // Absolute: the program and its children may run in another directory.
    if let resolved = realpath(chosen, nil) {
        library = String(cString: resolved)
        free(resolved)
    }
} else if let directory = executableDirectory() {
    library = directory + "/libConveyorDropIn.so"
} else {
    fail("cannot find this executable's directory; set CONVEYOR_DROP_IN to libConveyorDropIn.so")
}
guard access(library, R_OK) == 0 else {
    fail("\(library) not found (build it with `swift build --product ConveyorDropIn`, or set CONVEYOR_DROP_IN)")
}

// First in LD_PRELOAD: its definitions must come before any other library's.
let existing = getenv("LD_PRELOAD").map { String(cString: $0) } ?? ""
setenv("LD_PRELOAD", existing.isEmpty ? library : library + ":" + existing, 1)

var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.dropFirst().map { strdup($0) }
cArguments.append(nil)
execvp(arguments[1], cArguments)
fail("cannot run \(arguments[1]): \(String(cString: strerror(errno)))", status: errno == ENOENT ? 127 : 126)
