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

// Traps that say why in every build. The standard library's `precondition` and
// `preconditionFailure` drop their message in optimized builds (a release build prints
// only "precondition failure"), and most programs ship optimized: every trap of the
// runtime goes through `fatalError`, which keeps it (DESIGN.md, "Misuse").

/// Traps with `message` unless `condition` holds, in debug and optimized builds alike.
@inline(__always)
@usableFromInline
func ensure(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
            file: StaticString = #file, line: UInt = #line) {
    if _slowPath(!condition()) { fatalError(message(), file: file, line: line) }
}
