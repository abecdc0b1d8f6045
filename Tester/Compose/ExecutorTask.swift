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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif

/// A task that prefers one of the program's queues as its executor (`Program.Op.executorTask`,
/// Swift API): its `steps` pieces of work between suspension points are blocks of that
/// queue for the checker (exclusion with the queue's barriers and its targets' blocks, the
/// queue-specific value), each run once; the first runs `body`. The toolchain's Dispatch
/// has no task executors on Linux, so there the steps are plain blocks.
extension Runner {
    func executorTask(_ q: Int, steps: Int, body: [Program.Op]) {
        checker.expect(steps)
        let onces = (0..<steps).map { _ in Once("step of a task on q\(q)") }
        #if CONVEYOR
        Task(executorPreference: queues[q]) { [self] in
            for (index, once) in onces.enumerated() {
                once.run(checker)
                runBlock(q, barrier: false, what: "step \(index) of a task preferring q\(q)", order: nil) {
                    if index == 0 { perform(body, from: $0) }
                }
                await Task.yield()
            }
        }
        #else
        for (index, once) in onces.enumerated() {
            queues[q].async { [self] in
                once.run(checker)
                runBlock(q, barrier: false, what: "step \(index) of a task (a block on Dispatch)", order: nil) {
                    if index == 0 { perform(body, from: $0) }
                }
            }
        }
        #endif
    }
}
