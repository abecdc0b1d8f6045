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

import BenchCore
import Synchronization

/// `--load N`: threads of the harness's own process that burn CPU at normal priority while
/// every child runs, so that both libraries meet a busy machine (issue 24). They only
/// compute; they touch neither dispatch library, no memory beyond their stack, no lock.
final class LoadGenerator: Sendable {
    /// Set when the threads should end.
    private final class StopFlag: Sendable { let value = Atomic<Bool>(false) }
    private let stopFlag = StopFlag()
    private let threads: [BenchThread]

    /// Starts `count` burning threads (none for 0).
    init(threads count: Int) {
        let stop = stopFlag
        threads = (0..<count).map { _ in
            BenchThread {
                var x: UInt64 = 0x9E37_79B9_7F4A_7C15
                while !stop.value.load(ordering: .relaxed) {
                    for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
                }
                if x == 0 { print("") }   // keep the loop's work observable
            }
        }
    }

    /// Stops the threads and waits for them.
    func finish() {
        stopFlag.value.store(true, ordering: .relaxed)
        for thread in threads { thread.join() }
    }
}
