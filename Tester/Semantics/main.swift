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

// conveyor-semantics{,-dispatch}: the same deterministic questions about the API asked
// of each library (this source compiled twice, as the composition tester is), one
// answer per line, `name: answer`, on standard error. `SemanticsDifferentialTests`
// runs both builds and compares them line by line: where the answers differ, Conveyor
// must match libdispatch unless the test's list of known differences says why not.
// Every question has a single right answer on each library: no timing, no addresses.
#if canImport(Glibc)
import Glibc
#endif

/// Prints one answer.
func answer(_ name: String, _ value: @autoclosure () -> Any) {
    precondition(!name.contains(": "), "a question's name may not hold \": \" (it ends the name): \(name)")
    standardError("\(name): \(value())\n")
}

/// Writes `text` to standard error in one call (answers come from several threads).
func standardError(_ text: String) {
    var text = text
    text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
}

TimeQuestions.ask()
QueueQuestions.ask()
WorkQuestions.ask()
OrderQuestions.ask()
EdgeQuestions.ask()
DataQuestions.ask()
SourceQuestions.ask()
TimerQuestions.ask()
SourceOrderQuestions.ask()
IOQuestions.ask()
ChannelQuestions.ask()
MainQueueQuestions.ask()
