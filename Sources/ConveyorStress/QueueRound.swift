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

/// One round of queue traffic from one producer thread: builds a small queue tree, mixes
/// async, sync, barriers, suspension, inactive queues retargeted before activation,
/// cancelled work items, asyncAfter and nested submissions, then waits for the round to
/// drain and checks the counts.
struct QueueRound {
    private struct Node {
        let queue: DispatchQueue
        let probe: QueueProbe
        var active: Bool
        var isSerial: Bool { probe.isSerial }
    }

    let producer: Int
    let ledger: Ledger
    /// Serial queues shared by all producers for the whole run.
    let shared: [(queue: DispatchQueue, probe: QueueProbe)]

    func run(using rng: inout SplitMix64) {
        let round = ledger.rounds.add(1, ordering: .relaxed).newValue
        var nodes = makeTree(round: round, using: &rng)
        let group = DispatchGroup()
        let operations = 40 + rng.below(120)
        for _ in 0..<operations {
            perform(on: &nodes, group: group, using: &rng)
        }
        for index in nodes.indices where !nodes[index].active {
            nodes[index].queue.activate()
            nodes[index].active = true
        }
        if group.wait(timeout: .now() + .seconds(30)) == .timedOut {
            let left = nodes.map { "\($0.probe.name) \($0.probe.executed.load(ordering: .relaxed))/\($0.probe.expected.load(ordering: .relaxed))" }
            ledger.fail("round \(round): group still busy after 30 s (lost task?): \(left)")
            return
        }
        for node in nodes { node.probe.verifyCounts() }
    }

    /// A root (serial or concurrent, on a random global queue) and 2–5 children, some of
    /// them created inactive and retargeted before they are activated.
    private func makeTree(round: Int, using rng: inout SplitMix64) -> [Node] {
        let qosClasses: [DispatchQoS.QoSClass] = [.background, .utility, .default, .userInitiated, .userInteractive]
        let rootSerial = rng.chance(50)
        let rootName = "stress.\(producer).\(round).root"
        let root = DispatchQueue(
            label: rootName, attributes: rootSerial ? [] : .concurrent,
            target: .global(qos: qosClasses[rng.below(qosClasses.count)]))
        let rootProbe = QueueProbe(name: rootName, isSerial: rootSerial, serialAncestors: [], ledger: ledger)
        var nodes = [Node(queue: root, probe: rootProbe, active: true)]
        for child in 0..<(2 + rng.below(4)) {
            // A concurrent child only under a concurrent root: a concurrent queue that
            // targets a serial one is serial in effect, a case the probes do not model.
            let serial = rootSerial || rng.chance(60)
            let inactive = rng.chance(40)
            let name = "stress.\(producer).\(round).\(child)\(serial ? "s" : "c")\(inactive ? "i" : "")"
            var attributes: DispatchQueue.Attributes = serial ? [] : .concurrent
            if inactive { attributes.insert(.initiallyInactive) }
            let underRoot = rng.chance(70)
            let queue: DispatchQueue
            if inactive {
                queue = DispatchQueue(label: name, attributes: attributes)
                queue.setTarget(queue: underRoot ? root : .global(qos: qosClasses[rng.below(qosClasses.count)]))
            } else {
                queue = DispatchQueue(label: name, attributes: attributes, target: underRoot ? root : nil)
            }
            let ancestors = underRoot && rootSerial ? [rootProbe] : []
            nodes.append(Node(queue: queue, probe: QueueProbe(name: name, isSerial: serial, serialAncestors: ancestors, ledger: ledger), active: !inactive))
        }
        return nodes
    }

    private func perform(on nodes: inout [Node], group: DispatchGroup, using rng: inout SplitMix64) {
        let index = rng.below(nodes.count)
        let node = nodes[index]
        let probe = node.probe, queue = node.queue, me = producer, ledger = self.ledger
        switch rng.below(100) {
        case 0..<35:  // async
            let seq = probe.submit(from: 0)
            queue.async(group: group) { probe.run(submitter: 0, sequence: seq) }
        case 35..<45:  // sync (only on active queues: an inactive one would block forever)
            let seq = probe.submit(from: 0)
            if node.active {
                queue.sync { probe.run(submitter: 0, sequence: seq) }
            } else {
                queue.async(group: group) { probe.run(submitter: 0, sequence: seq) }
            }
        case 45..<52:  // barrier on a concurrent queue, async or sync
            guard !node.isSerial else { return }
            let earlier = probe.orderedSubmitted
            _ = probe.submit(from: 0)
            if node.active && rng.chance(30) {
                queue.sync(flags: .barrier) { probe.runBarrier(earlier: earlier) }
            } else {
                queue.async(group: group, flags: .barrier) { probe.runBarrier(earlier: earlier) }
            }
        case 52..<60:  // suspend, submit, cancel one item, resume
            queue.suspend()
            for _ in 0..<(1 + rng.below(4)) {
                let seq = probe.submit(from: 0)
                queue.async(group: group) { probe.run(submitter: 0, sequence: seq) }
            }
            submitCancelled(to: queue, group: group, name: probe.name)
            queue.resume()
        case 60..<64:  // a cancelled item on a queue not yet activated, or cancelled up front
            if !node.active {
                submitCancelled(to: queue, group: group, name: probe.name)
            } else {
                let item = DispatchWorkItem { ledger.fail("\(probe.name): a work item cancelled before submission ran") }
                item.cancel()
                queue.async(group: group, execute: item)
            }
        case 64..<70:  // activate an inactive queue
            guard !node.active else { return }
            queue.activate()
            nodes[index].active = true
        case 70..<77:  // asyncAfter: runs once, never early, no FIFO promise
            let deadline = DispatchTime.now() + .microseconds(rng.below(3000))
            probe.submitTimed()
            group.enter()
            queue.asyncAfter(deadline: deadline) {
                probe.run(submitter: 0, sequence: nil) {
                    ledger.check(DispatchTime.now() >= deadline, "\(probe.name): asyncAfter ran early")
                }
                group.leave()
            }
        case 77..<85:  // nested: a serial task feeds another serial queue of the round
            guard node.isSerial, let target = nodes.first(where: { $0.isSerial && $0.probe !== probe }) else { return }
            let seq = probe.submit(from: 0)
            let targetQueue = target.queue, targetProbe = target.probe, feeder = QueueProbe.feederBase + index
            queue.async(group: group) {
                probe.run(submitter: 0, sequence: seq) {
                    // Tasks of `probe` run one at a time and in order, so their sequence is FIFO.
                    let inner = targetProbe.submit(from: feeder)
                    targetQueue.async(group: group) { targetProbe.run(submitter: feeder, sequence: inner) }
                }
            }
        case 85..<93:  // shared queues: many producers, one sequence each
            let (sharedQueue, sharedProbe) = shared[rng.below(shared.count)]
            let seq = sharedProbe.submit(from: 2 + me)
            if rng.chance(80) {
                sharedQueue.async(group: group) { sharedProbe.run(submitter: 2 + me, sequence: seq) }
            } else {
                sharedQueue.sync { sharedProbe.run(submitter: 2 + me, sequence: seq) }
            }
        default:  // a work item, waited for when its queue can run it
            let seq = probe.submit(from: 0)
            let item = DispatchWorkItem { probe.run(submitter: 0, sequence: seq) }
            queue.async(group: group, execute: item)
            if node.active && rng.chance(50) {
                ledger.check(item.wait(timeout: .now() + .seconds(30)) == .success, "\(probe.name): work item wait timed out")
            }
        }
    }

    /// Submits a work item to `queue` (suspended or inactive) and cancels it: it must never run.
    private func submitCancelled(to queue: DispatchQueue, group: DispatchGroup, name: String) {
        let ledger = self.ledger
        let item = DispatchWorkItem { ledger.fail("\(name): a cancelled work item ran") }
        queue.async(group: group, execute: item)
        item.cancel()
        ledger.check(item.isCancelled, "\(name): isCancelled false after cancel()")
    }
}
