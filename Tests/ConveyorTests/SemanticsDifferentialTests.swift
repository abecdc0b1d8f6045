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

/// The semantics probe (Tester/Semantics) asked of both libraries: the same source,
/// compiled against the toolchain's Dispatch (`conveyor-semantics-dispatch`) and against
/// Conveyor (`conveyor-semantics`), answers about 250 deterministic questions (time
/// arithmetic at its edges, QoS values, labels, queue-specific values, inactive and
/// suspended queues, what semaphores, groups and work items return, the orders GCD fixes,
/// DispatchData's regions and copies, source handlers around cancellation, timers at the
/// edges of `schedule`, DispatchIO's reads, writes and errors, the main queue under
/// `dispatchMain()`). Conveyor must answer each as libdispatch does, except where
/// Tester/semantics.known records the answer and why (libdispatch's Linux
/// faults; Scripts/drop-in.sh reads the same file for the probe's libdispatch build under
/// the drop-in library).
@Suite struct SemanticsDifferentialTests {
    /// Questions Conveyor answers differently on purpose, in this run (the probe built
    /// against Conveyor): Tester/semantics.known's rows for "switched" and
    /// "both", by name: the answer Conveyor gives, and why.
    static func knownDifferences() throws -> [String: (conveyor: String, why: String)] {
        let path = String(#filePath.dropLast("Tests/ConveyorTests/SemanticsDifferentialTests.swift".count))
            + "Tester/semantics.known"
        guard let text = readTextFile(path) else { throw ProbeError(message: "cannot read \(path)") }
        var known: [String: (conveyor: String, why: String)] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { throw ProbeError(message: "\(path): not four fields: \(line)") }
            if fields[2] == "both" || fields[2] == "switched" { known[fields[0]] = (fields[1], fields[3]) }
        }
        return known
    }

    static func answers(of program: String) throws -> [String: String] {
        let outcome = try runProbe(nil, program: program, timeoutSeconds: 120)
        #expect(outcome.status == 0, "\(program) exited with status \(outcome.status):\n\(outcome.stderr)")
        var answers: [String: String] = [:]
        var finished = false
        for line in outcome.stderr.split(separator: "\n") {
            if line == "done" { finished = true; continue }
            guard let colon = line.firstRange(of: ": ") else { continue }
            let name = String(line[..<colon.lowerBound])
            #expect(answers[name] == nil, "\(program) answered \(name) twice")
            answers[name] = String(line[colon.upperBound...])
        }
        #expect(finished, "\(program) did not finish:\n\(outcome.stderr)")
        return answers
    }

    @Test func conveyorAnswersAsTheToolchainsDispatchDoes() throws {
        let known = try Self.knownDifferences()
        let dispatch = try Self.answers(of: "conveyor-semantics-dispatch")
        let conveyor = try Self.answers(of: "conveyor-semantics")
        #expect(dispatch.count > 200, "the probe answered only \(dispatch.count) questions on Dispatch")
        for name in Set(dispatch.keys).union(conveyor.keys).sorted() {
            let expected = dispatch[name] ?? "(no answer)"
            let answered = conveyor[name] ?? "(no answer)"
            if let known = known[name] {
                #expect(answered == known.conveyor, "\(name): Conveyor answered \(answered), recorded \(known.conveyor) (\(known.why))")
            } else {
                #expect(answered == expected, "\(name): Conveyor answered \(answered), the toolchain's Dispatch \(expected)")
            }
        }
    }
}
