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

// conveyor-faults-{dispatch,conveyor} SCENARIO [--quick]: runs one of issue 11's fault
// scenarios against one library and prints its figures. Benchmarks/faults.py runs them.
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let scenarios: [(name: String, run: () -> Void)] = [
    ("sync-chain", { QueueScenarios.syncThroughChain(calls: quick ? 200 : 2_000) }),
    ("cpu-burst", { quick ? PoolScenarios.cpuBurst(tasks: 16, milliseconds: 100) : PoolScenarios.cpuBurst(tasks: 60, milliseconds: 400) }),
    ("post-latency", { PoolScenarios.postFromBusyWorker(rounds: quick ? 3 : 10) }),
    ("background-start", { PoolScenarios.backgroundStart() }),
    ("nice", { PoolScenarios.niceAfterBackground() }),
    ("signal-handler", { SignalScenarios.handlerAfterCancel() }),
    ("sigchld-reaping", { SignalScenarios.sigchldReaping() }),
    ("mask-creator-blocked", { SignalScenarios.workerMask(creatorBlocksInt: true) }),
    ("mask-creator-clear", { SignalScenarios.workerMask(creatorBlocksInt: false) }),
    ("main-thread", { QueueScenarios.mainThreadBinding() }),
    ("group-capture", { QueueScenarios.groupCapture(rounds: quick ? 2_000 : 20_000) }),
]

if arguments.contains("--list") {
    for scenario in scenarios { print(scenario.name) }
    exit(0)
}
guard let name = arguments.first(where: { !$0.hasPrefix("--") }),
      let scenario = scenarios.first(where: { $0.name == name }) else {
    print("usage: \(CommandLine.arguments[0]) SCENARIO [--quick] | --list")
    exit(2)
}
scenario.run()
exit(0)
