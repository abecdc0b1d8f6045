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

import Conveyor
#if canImport(Glibc)
import Glibc
#endif

/// Where a listing writes what it shows. Each line is printed at once (when `echo` is on)
/// and kept, so a test can run the same listing quietly and read back what it said.
/// Lines may come from any thread; `check` records whether a claim the listing makes
/// about Conveyor held, so the program and the tests agree on what "worked" means.
public final class Transcript: @unchecked Sendable {
    private struct State {
        var lines: [String] = []
        var failures: [String] = []
    }

    /// Lines come from any thread: the state is kept on a serial queue.
    private let queue = DispatchQueue(label: "com.example.transcript")
    private var state = State()
    private let echo: Bool

    /// Creates a transcript.
    /// - Parameter echo: Whether each line is also printed to standard output.
    public init(echo: Bool = true) {
        self.echo = echo
    }

    /// Records (and prints) one line of a listing's output.
    public func say(_ line: String) {
        queue.sync {
            state.lines.append(line)
            if echo {
                print(line)
                fflush(nil)   // all streams: `stdout` is a global var Swift 6 will not touch
            }
        }
    }

    /// Records a claim the listing makes: "ok: …" when it holds, "FAILED: …" when not.
    public func check(_ condition: Bool, _ claim: String) {
        if condition {
            say("  ok: \(claim)")
        } else {
            queue.sync { state.failures.append(claim) }
            say("  FAILED: \(claim)")
        }
    }

    /// Every line said so far, in the order they were said.
    public var lines: [String] { queue.sync { state.lines } }

    /// The claims that did not hold.
    public var failures: [String] { queue.sync { state.failures } }
}

/// A value that is only read and written by tasks on one serial queue: the queue, not a
/// lock, makes the access safe (the chapter's "use a serial queue instead of a lock").
/// The compiler cannot see that discipline, hence `@unchecked Sendable`.
final class QueueConfined<Value>: @unchecked Sendable {
    /// The value; touch it only from the owning queue (or after a `sync` on it).
    var value: Value

    /// Wraps an initial value.
    init(_ value: Value) {
        self.value = value
    }
}

/// A deadline a listing waits for at most: long enough for a CI machine three times slower
/// than ours while dozens of exit-test children run beside the test process (5 s once
/// expired there), short enough that a lost wake-up shows as a failed check instead of a
/// hung program. A listing that works returns long before it.
func listingDeadline() -> DispatchTime {
    .now() + .seconds(60)
}
