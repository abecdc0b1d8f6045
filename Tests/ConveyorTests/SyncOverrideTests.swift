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

@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sync` from a more important band onto a queue whose drain waits in the pool at a less
/// important one (SyncOverride.swift): a second job at the caller's band may drain it, and
/// exactly one of the two does.
@Suite struct SyncOverrideTests {
    /// At a thread cap of four, four default blocks hold every thread (waiting on a
    /// semaphore, so that the pool starts a thread for each) and then `sync` on a
    /// background serial queue whose drain waits on the background band's shared queue
    /// (queued from a plain thread meanwhile). Without the override nothing could run it:
    /// every thread waits, and reserve threads were only for what blocked jobs posted (the
    /// composition tester, program 182325181, at `--thread-cap 4`; since band relief a
    /// reserve thread may take the background band's drain too). Each caller's stealer
    /// is such a post. `throughChild`: the callers `sync` on a queue without a QoS that
    /// targets the background queue; they wait in the child's list, and the drain they
    /// depend on is the background queue's, which they raise.
    @Test(arguments: [false, true])
    func defaultSyncCallersOfABackgroundQueueFinishWhenTheyHoldEveryThread(throughChild: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) { [throughChild] in
            let cap = 4
            WorkerPool.shared.lowerThreadCap(to: cap)
            WorkerPool.shared.lowerReserveThreadLimit(to: 2)
            let parent = DispatchQueue(label: "test.background", qos: .background)
            let background = throughChild ? DispatchQueue(label: "test.child", target: parent) : parent
            let arrived = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let ranFirst = AtomicFlagBox()
            let group = DispatchGroup()
            for _ in 0..<cap {
                DispatchQueue.global().async(group: group) {
                    arrived.signal()
                    gate.wait()
                    background.sync { precondition(ranFirst.value, "sync ran before the async block queued ahead of it") }
                }
            }
            for _ in 0..<cap where arrived.wait(timeout: deadline()) == .timedOut {
                say("the four blocks did not all start")
                finishChild(false)
            }
            // From this plain thread: the drain goes to the background band's shared queue,
            // and no thread is free to take it.
            background.async { ranFirst.set(true) }
            for _ in 0..<cap { gate.signal() }
            let finished = group.wait(timeout: deadline(seconds: 20)) == .success
            say(finished ? "all four sync calls returned" : "the sync callers still waited after 20 s:\n" + WorkerPool.shared.stateDescription)
            finishChild(finished)
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    /// Drain jobs and stealers race for the same schedulings: callers at three bands `sync`
    /// onto background and utility queues, serial and concurrent, each after `async` items
    /// of its own. Every item runs once, a serial queue's in order
    /// and alone, and a `sync` sees every item its own thread queued before it.
    @Test func drainJobsAndStealersNeverBothDrain() {
        let queues: [DispatchQueue] = [
            DispatchQueue(label: "test.override.bg", qos: .background),
            DispatchQueue(label: "test.override.utility", qos: .utility),
            DispatchQueue(label: "test.override.unspecified", target: DispatchQueue.global(qos: .background)),
            DispatchQueue(label: "test.override.concurrent", qos: .background, attributes: .concurrent),
        ]
        let rounds = 400
        let lanes = 6
        let perQueue = (0..<queues.count).map { _ in Counter() }
        let inside = (0..<queues.count).map { _ in Counter() }
        let faults = Counter()
        let group = DispatchGroup()
        let bands: [DispatchQoS.QoSClass] = [.userInitiated, .default, .userInteractive]
        for lane in 0..<lanes {
            DispatchQueue.global(qos: bands[lane % bands.count]).async(group: group) {
                for round in 0..<rounds {
                    let index = (lane + round) % queues.count
                    let queue = queues[index]
                    let serial = index != 3
                    // This lane's own items on this queue, in order.
                    let mine = Counter()
                    for expected in 0..<3 {
                        queue.async(group: group) {
                            if serial {
                                if inside[index].increment() != 1 { faults.increment() }
                                if mine.current != expected { faults.increment() }
                            }
                            mine.increment()
                            perQueue[index].increment()
                            if serial { inside[index].value.subtract(1, ordering: .relaxed) }
                        }
                    }
                    // A barrier on the concurrent queue: it too waits for the items before it.
                    queue.sync(flags: serial ? [] : .barrier) {
                        if serial && inside[index].current != 0 { faults.increment() }
                        if mine.current != 3 { faults.increment() }
                    }
                }
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 120)) == .success)
        #expect(faults.current == 0)
        let total = perQueue.reduce(0) { $0 + $1.current }
        #expect(total == lanes * rounds * 3)
        // Whether the race happened is up to the machine: said, not asserted.
        print("drain stealers posted: \(drainStealersPosted.load(ordering: .relaxed)), "
              + "won: \(drainStealersWon.load(ordering: .relaxed)) (the whole process so far)")
    }

    /// Every job that holds a queue gives it back: a stealer that wins passes its retain
    /// to the drain job it beat, one that loses drops it. Queues raised by `sync` callers
    /// and then released are freed once the last such job ran (a leak keeps one alive;
    /// a release too many crashes).
    @Test func raisedQueuesAreFreedOnceTheirJobsRan() {
        final class Holder: @unchecked Sendable { weak var queue: DispatchQueue? }
        let holders = (0..<16).map { _ in Holder() }
        let group = DispatchGroup()
        for (index, holder) in holders.enumerated() {
            let queue = DispatchQueue(label: "test.override.freed", qos: .background,
                                      attributes: index % 4 == 3 ? .concurrent : [])
            holder.queue = queue
            for round in 0..<50 {
                queue.async(group: group) { if round % 10 == 0 { computeFor(milliseconds: 0.05) } }
                DispatchQueue.global(qos: .userInitiated).async(group: group) {
                    queue.sync(flags: index % 4 == 3 ? .barrier : []) {}
                }
            }
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        #expect(waitUntil { holders.allSatisfy { $0.queue == nil } },
                "\(holders.filter { $0.queue != nil }.count) of \(holders.count) queues still alive")
    }
}
