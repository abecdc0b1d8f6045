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
/// Conveyor (`conveyor-semantics`), answers about 220 deterministic questions (time
/// arithmetic at its edges, QoS values, labels, queue-specific values, inactive and
/// suspended queues, what semaphores, groups and work items return, DispatchData's
/// regions and copies, source handlers around cancellation, DispatchIO's reads, writes
/// and errors). Conveyor must answer each as libdispatch does, except where
/// `knownDifferences` says why not (libdispatch's Linux faults), and there with the
/// answer recorded. The write source's difference is libdispatch's own on Linux too: its
/// estimate of the space left is always 1.
@Suite struct SemanticsDifferentialTests {
    /// Questions Conveyor answers differently on purpose: the answer it gives, and why.
    static let knownDifferences: [String: (conveyor: String, why: String)] = {
        let identity = "libdispatch on Linux wraps each global queue it returns in a new Swift object; "
            + "Darwin's Dispatch returns the same object for the same QoS, and so does Conveyor"
        var known: [String: (conveyor: String, why: String)] = [
            "global() is global(default)": ("true", identity),
            "global(unspecified) is global(default)": ("true", identity),
        ]
        for name in ["background", "utility", "default", "userInitiated", "userInteractive", "unspecified"] {
            known["global(\(name)) is global(\(name))"] = ("true", identity)
        }
        let noUserInteractive = "libdispatch on Linux has no user-interactive global queue (without the kernel's "
            + "workqueue QoS it maps that class to user-initiated, one of its Linux QoS faults); Conveyor keeps the class"
        known["global(userInteractive) label"] = ("com.apple.root.user-interactive-qos", noUserInteractive)
        known["global(userInteractive).qos"] = ("userInteractive", noUserInteractive)
        known["write source on an empty pipe"] = (
            #"["writable more than 1", "cancel"]"#,
            "a write source's data is the space left to write, as on Darwin; libdispatch on Linux reports 1 "
                + "(epoll gives no estimate)")
        return known
    }()

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
        let dispatch = try Self.answers(of: "conveyor-semantics-dispatch")
        let conveyor = try Self.answers(of: "conveyor-semantics")
        #expect(dispatch.count > 200, "the probe answered only \(dispatch.count) questions on Dispatch")
        for name in Set(dispatch.keys).union(conveyor.keys).sorted() {
            let expected = dispatch[name] ?? "(no answer)"
            let answered = conveyor[name] ?? "(no answer)"
            if let known = Self.knownDifferences[name] {
                #expect(answered == known.conveyor, "\(name): Conveyor answered \(answered), recorded \(known.conveyor) (\(known.why))")
            } else {
                #expect(answered == expected, "\(name): Conveyor answered \(answered), the toolchain's Dispatch \(expected)")
            }
        }
    }
}
