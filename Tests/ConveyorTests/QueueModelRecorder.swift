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

/// What the tasks of a model-test program record as they run: the order per queue, the
/// tasks done, what each barrier and notify saw, and any overlap that must not happen.
///
/// Guarded by a spin lock built on `Atomic` (acquire/release), which ThreadSanitizer
/// understands, unlike `Mutex`'s futex hand-off.
final class QueueModelRecorder: @unchecked Sendable {
    private let locked = Atomic<Bool>(false)
    private var logs = Array(repeating: [Int](), count: QueueModelProgram.queueCount)
    private var inFlight = Array(repeating: 0, count: QueueModelProgram.queueCount)
    private var done: Set<Int> = []
    private var concurrentDone: Set<Int> = []
    private var concurrentRunning = 0
    private var barrierRunning = false
    private var barrierSaw: [Int: Set<Int>] = [:]
    private var notifySaw: [Int: [Set<Int>]] = [:]
    private var problems: [String] = []

    private func withLock<T>(_ body: () -> T) -> T {
        while locked.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged == false {
            while locked.load(ordering: .relaxed) {}
        }
        defer { locked.store(false, ordering: .releasing) }
        return body()
    }

    /// A task (or barrier) of `queue` starts; `chain` lists the serial queues it excludes.
    func begin(queue: Int, id: Int, chain: [Int], barrier: Bool = false) {
        withLock {
            logs[queue].append(id)
            for q in chain {
                inFlight[q] += 1
                if inFlight[q] != 1 { problems.append("#\(id) on q\(queue) overlapped another task of serial q\(q)") }
            }
            guard queue == QueueModelProgram.concurrent else { return }
            if barrier {
                if concurrentRunning != 0 || barrierRunning { problems.append("barrier #\(id) started while \(concurrentRunning) tasks ran") }
                barrierSaw[id] = concurrentDone
                barrierRunning = true
            } else if barrierRunning {
                problems.append("#\(id) started during a barrier")
            }
            concurrentRunning += 1
        }
    }

    func end(queue: Int, id: Int, chain: [Int], barrier: Bool = false) {
        withLock {
            for q in chain { inFlight[q] -= 1 }
            done.insert(id)
            if queue == QueueModelProgram.concurrent {
                concurrentRunning -= 1
                concurrentDone.insert(id)
                if barrier { barrierRunning = false }
            }
        }
    }

    func notified(id: Int) { withLock { notifySaw[id, default: []].append(done) } }

    func problem(_ text: String) { withLock { problems.append(text) } }

    /// The differences between what ran and what the model expected (empty: they agree).
    func compare(with e: QueueModelProgram.Expectation) -> [String] {
        withLock {
            var diffs = problems
            for q in 0..<QueueModelProgram.queueCount {
                if q == QueueModelProgram.concurrent {
                    if logs[q].sorted() != e.order[q].sorted() { diffs.append("q\(q) ran \(logs[q].sorted()), expected \(e.order[q].sorted())") }
                } else if logs[q] != e.order[q] {
                    diffs.append("q\(q) ran \(logs[q]), expected \(e.order[q])")
                }
            }
            for (id, expected) in e.barrierSees where barrierSaw[id] != expected {
                diffs.append("barrier #\(id) saw \(barrierSaw[id].map { $0.sorted() } ?? []) done, expected \(expected.sorted())")
            }
            for (id, required) in e.notifySees {
                guard let seen = notifySaw[id], seen.count == 1 else {
                    diffs.append("notify #\(id) ran \(notifySaw[id]?.count ?? 0) times")
                    continue
                }
                let missing = required.subtracting(seen[0])
                if !missing.isEmpty { diffs.append("notify #\(id) ran before \(missing.sorted()) were done") }
            }
            let ranCancelled = e.cancelled.intersection(logs.joined())
            if !ranCancelled.isEmpty { diffs.append("cancelled items ran: \(ranCancelled.sorted())") }
            return diffs
        }
    }
}
