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
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Model-based tests: random programs of queue operations run on real queues and are
/// compared with what a sequential model of the program predicts (serial queues run in
/// submission order, barriers see exactly the earlier tasks done, notify runs once after
/// everything before it, cancelled items never run).
///
/// A failure prints the program's seed; `CONVEYOR_MODEL_SEED=<seed> swift test --filter
/// QueueModel` replays that one program.
@Suite struct QueueModelTests {
    @Test func randomProgramsMatchTheSequentialModel() {
        let seeds: [UInt64]
        if let text = getenv("CONVEYOR_MODEL_SEED").map({ String(cString: $0) }), let seed = UInt64(text) {
            seeds = [seed]
        } else {
            var rng = SplitMix64(seed: UInt64.random(in: 0...UInt64.max))
            seeds = (0..<200).map { _ in rng.next() }
        }
        for seed in seeds {
            let program = QueueModelProgram(seed: seed)
            let diffs = QueueModelRunner(program: program).run()
            if !diffs.isEmpty {
                Issue.record("""
                    Queue program disagrees with the model (replay: CONVEYOR_MODEL_SEED=\(seed)):
                      \(diffs.joined(separator: "\n  "))
                    program \(program)
                    """)
                return
            }
        }
    }
}

/// Runs a `QueueModelProgram` on real queues, on the calling thread, and returns the
/// differences from the model.
struct QueueModelRunner {
    let program: QueueModelProgram
    let recorder = QueueModelRecorder()
    let group = DispatchGroup()
    let notifies = DispatchGroup()

    func run() -> [String] {
        typealias P = QueueModelProgram
        let a = DispatchQueue(label: "model.q0")
        let b = DispatchQueue(label: "model.q1", target: program.serialBTargetsA ? a : nil)
        let c = DispatchQueue(label: "model.q2", attributes: .concurrent)
        let i = DispatchQueue(label: "model.q3", attributes: .initiallyInactive)
        i.setTarget(queue: program.inactiveTarget.map { [a, b, c][$0] } ?? .global())
        let queues = [a, b, c, i]
        var activated = false
        for op in program.ops {
            switch op {
            case let .async(q, id):
                queues[q].async(group: group, execute: task(q, id))
            case let .sync(q, id):
                queues[q].sync(execute: task(q, id))
            case let .barrierAsync(id):
                c.async(group: group, flags: .barrier, execute: task(P.concurrent, id, barrier: true))
            case let .barrierSync(id):
                c.sync(flags: .barrier, execute: task(P.concurrent, id, barrier: true))
            case let .suspended(q, ids, cancelled):
                queues[q].suspend()
                for id in ids { queues[q].async(group: group, execute: task(q, id)) }
                submitCancelled(to: queues[q], id: cancelled, cancelFirst: false)
                queues[q].resume()
            case let .cancelledUpFront(q, id):
                submitCancelled(to: queues[q], id: id, cancelFirst: true)
            case let .cancelledWhileInactive(id):
                submitCancelled(to: i, id: id, cancelFirst: false)
            case .activate:
                i.activate()
                activated = true
            case let .enterLeave(q, id):
                group.enter()
                let body = task(q, id), group = self.group
                queues[q].async {
                    body()
                    group.leave()
                }
            case let .notify(id):
                notifies.enter()
                let recorder = self.recorder, notifies = self.notifies
                group.notify(queue: .global()) {
                    recorder.notified(id: id)
                    notifies.leave()
                }
            case let .workItem(q, id, wait):
                let item = DispatchWorkItem(block: task(q, id))
                queues[q].async(group: group, execute: item)
                if wait && item.wait(timeout: .now() + .seconds(30)) == .timedOut {
                    recorder.problem("work item #\(id) wait timed out")
                }
            }
        }
        if !activated { i.activate() }
        if group.wait(timeout: .now() + .seconds(30)) == .timedOut { recorder.problem("group wait timed out (lost task?)") }
        if notifies.wait(timeout: .now() + .seconds(30)) == .timedOut { recorder.problem("a group notify never ran") }
        return recorder.compare(with: program.expectation())
    }

    /// The body of task `id` on queue `q`: records its start and end.
    private func task(_ q: Int, _ id: Int, barrier: Bool = false) -> @Sendable () -> Void {
        let recorder = self.recorder, chain = program.exclusionChain(of: q)
        return {
            recorder.begin(queue: q, id: id, chain: chain, barrier: barrier)
            recorder.end(queue: q, id: id, chain: chain, barrier: barrier)
        }
    }

    /// Submits a work item that is cancelled (before submission, or after it while its
    /// queue cannot start it); it must never run, and its group entry must still end.
    private func submitCancelled(to queue: DispatchQueue, id: Int, cancelFirst: Bool) {
        let recorder = self.recorder
        let item = DispatchWorkItem { recorder.problem("cancelled item #\(id) ran") }
        if cancelFirst { item.cancel() }
        queue.async(group: group, execute: item)
        item.cancel()
    }
}
