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

import Synchronization

/// The run's bookkeeping, shared by every thread: how many tasks ran and checks held, and
/// every violation seen (a check that failed), with enough detail to start debugging.
final class Ledger: Sendable {
    let tasksRun = Atomic<Int>(0)
    let checksHeld = Atomic<Int>(0)
    let rounds = Atomic<Int>(0)
    private let failures = Mutex<[String]>([])
    private let failureCount = Atomic<Int>(0)

    /// Records the outcome of one check; `detail` is built only when it failed.
    func check(_ condition: Bool, _ detail: @autoclosure () -> String) {
        if condition {
            checksHeld.add(1, ordering: .relaxed)
        } else {
            fail(detail())
        }
    }

    func fail(_ detail: String) {
        let n = failureCount.add(1, ordering: .relaxed).newValue
        if n <= 50 { failures.withLock { $0.append(detail) } }
    }

    func taskRan() { tasksRun.add(1, ordering: .relaxed) }

    var violationCount: Int { failureCount.load(ordering: .relaxed) }
    var violations: [String] { failures.withLock { $0 } }
}
