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

/// The composition tester (Tester/Compose) as part of the suite: generated programs that
/// mix queues, targets, barriers, `sync` chains, groups, work items, timers, data sources,
/// suspension and `concurrentPerform`, in the Swift API and the C API, checked for what
/// every GCD keeps. It runs as a child process, so that a hang is reported with the state
/// of every queue and thread and then killed, not left in the test runner; under
/// `swift test --sanitize=thread` the child is built with the sanitizer too.
///
/// A bounded budget here (CONVEYOR_COMPOSE_SECONDS, default 20 s, and a third of it at a
/// thread cap of 8); longer soaks with `swift run -c release conveyor-compose --minutes
/// N`, and side by side with the toolchain's Dispatch with Scripts/compose.sh.
@Suite struct CompositionTesterTests {
    @Test func generatedProgramsKeepWhatEveryGCDKeeps() throws {
        let seconds = getenv("CONVEYOR_COMPOSE_SECONDS").flatMap { Int(String(cString: $0)) } ?? 20
        // A liveness bound well above anything a program needs (each takes milliseconds),
        // for sanitizer builds on a busy 2-CPU machine.
        let outcome = try runProbe(nil, program: "conveyor-compose",
                                   arguments: ["--seconds", "\(seconds)", "--liveness", "60"],
                                   timeoutSeconds: seconds + 120)
        #expect(outcome.status == 0, "the composition tester failed (status \(outcome.status)); replay a seed with `conveyor-compose --seed S`:\n\(outcome.stderr)")
    }

    /// The same at a pool of at most 8 threads (`--thread-cap`), where ordinary programs
    /// reach the cap, the hand-off queue and the reserve threads; under the sanitizers
    /// too (the ThreadSanitizer build found a stall there that release builds had not).
    @Test func generatedProgramsKeepWhatEveryGCDKeepsAtALowThreadCap() throws {
        let seconds = max(5, (getenv("CONVEYOR_COMPOSE_SECONDS").flatMap { Int(String(cString: $0)) } ?? 20) / 3)
        let outcome = try runProbe(nil, program: "conveyor-compose",
                                   arguments: ["--seconds", "\(seconds)", "--liveness", "60", "--thread-cap", "8"],
                                   timeoutSeconds: seconds + 120)
        #expect(outcome.status == 0, "the composition tester failed at a thread cap of 8 (status \(outcome.status)); replay a seed with `conveyor-compose --thread-cap 8 --seed S`:\n\(outcome.stderr)")
    }
}
