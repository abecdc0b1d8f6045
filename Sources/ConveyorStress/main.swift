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

// conveyor-stress: mixes Conveyor operations from many threads for a bounded time and
// checks that every task ran exactly once, serial queues kept order and exclusion,
// sources and groups kept their promises, and threads, fds and memory came back.
import Conveyor
#if canImport(Glibc)
import Glibc
#endif

let options = StressOptions.parse(Array(CommandLine.arguments.dropFirst()))
print("conveyor-stress: \(options.seconds) s, seed \(options.seed), \(options.producers) producers")

warmUp()
let before = ProcessStats.current()
let started = DispatchTime.now()
let run = StressRun(options: options)
run.run()
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
let restored = BaselineCheck(before: before, waitForIdleWorkers: options.waitForIdleWorkers, idleWaitSeconds: options.idleWaitSeconds).verify()

let ledger = run.ledger
print("""
    ran \(format2(elapsed)) s: \(ledger.rounds.load(ordering: .relaxed)) rounds, \
    \(ledger.tasksRun.load(ordering: .relaxed)) tasks run, \(ledger.checksHeld.load(ordering: .relaxed)) checks held, \
    \(ledger.violationCount) violations
    baseline before: \(before)
    after:           \(restored.after)
    """)
for line in restored.report { print("  " + line) }
for violation in ledger.violations { print("VIOLATION: \(violation)") }
if ledger.violationCount > ledger.violations.count {
    print("... and \(ledger.violationCount - ledger.violations.count) more")
}
let ok = ledger.violationCount == 0 && restored.ok
print(ok ? "PASS (seed \(options.seed))" : "FAIL (seed \(options.seed))")
exit(ok ? 0 : 1)
