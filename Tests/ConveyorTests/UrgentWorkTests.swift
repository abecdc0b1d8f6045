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

/// Work of a band that no worker runs starts while every worker computes a less important
/// band's jobs (`WorkerPool+Urgency.swift`). Before, it waited until one of those jobs
/// returned: here, never, since each spins until the important work has run (or for 20 s,
/// and the test fails). libdispatch on Linux runs each QoS class on threads of its own and
/// starts it at once. Each case runs in a child process, whose pool holds nothing but its
/// own spinning jobs: in the test process, other suites' jobs on the same workers made
/// "every worker computes" something else (a case failed so once in CI, under
/// AddressSanitizer). Serialized: each case fills every CPU.
@Suite(.serialized) struct UrgentWorkTests {
    /// How the important block is posted: from a thread outside the pool onto a global
    /// queue, or from inside one of the busy jobs onto a serial queue (its drain would have
    /// gone to that worker's LIFO slot, behind the job that posts it).
    enum Poster: Codable, Sendable, CustomStringConvertible {
        case outsideOntoGlobal
        case busyJobOntoSerial
        var description: String { self == .outsideOntoGlobal ? "from outside onto a global queue" : "from a busy job onto a serial queue" }
    }

    /// One case of `moreImportantWorkStartsWhileEveryWorkerComputes`.
    struct Case: Codable, Sendable, CustomTestStringConvertible {
        let busy: PostAndWaitTests.Band
        let important: PostAndWaitTests.Band
        let poster: Poster
        var testDescription: String { "\(important) work \(poster) while \(busy) jobs compute" }

        static let all: [Case] = [
            Case(busy: .default, important: .userInitiated, poster: .outsideOntoGlobal),
            Case(busy: .default, important: .userInteractive, poster: .busyJobOntoSerial),
            Case(busy: .background, important: .default, poster: .outsideOntoGlobal),
            Case(busy: .utility, important: .userInitiated, poster: .busyJobOntoSerial),
        ]
    }

    @Test(arguments: Case.all)
    func moreImportantWorkStartsWhileEveryWorkerComputes(_ testCase: Case) async {
        await #expect(processExitsWith: .success) { [testCase] in
            let spinners = Spinners(band: testCase.busy.qos)
            let important = testCase.important.qos
            let importantQueue = DispatchQueue(label: "important", qos: DispatchQoS(qosClass: important, relativePriority: 0))
            let outside = testCase.poster == .outsideOntoGlobal
            let postImportant: @Sendable () -> Void = {
                let target: DispatchQueue = outside ? .global(qos: important) : importantQueue
                target.async(group: spinners.group) { spinners.release() }
            }
            spinners.start(postingFromTheFirst: outside ? nil : postImportant)
            if outside {
                #expect(spinners.waitUntilEveryWorkerSpins())
                postImportant()
            }
            spinners.finish(expecting: "the \(important) block")
        }
    }

    /// What the important job posts runs too, though every other worker still computes: a
    /// refresh of the credit after that job counts the posts on its worker's ring or LIFO
    /// slot, so the worker stays instead of retiring with them (before, they went to the
    /// hand-off queue and waited there for a busy job to return).
    @Test(arguments: [false, true])
    func postsOfTheImportantJobRunWhileEveryOtherWorkerComputes(ontoSerialQueue: Bool) async {
        await #expect(processExitsWith: .success) { [ontoSerialQueue] in
            let spinners = Spinners(band: .default)
            let followUp = DispatchQueue(label: "follow-up", qos: .userInitiated)
            #expect(spinners.waitUntilEveryWorkerSpins(afterStarting: true))
            DispatchQueue.global(qos: .userInitiated).async(group: spinners.group) {
                let target: DispatchQueue = ontoSerialQueue ? followUp : .global(qos: .userInitiated)
                target.async(group: spinners.group) { spinners.release() }
            }
            spinners.finish(expecting: "the user-initiated block's post")
        }
    }

    /// A band between two running ones gets a worker too: with background jobs on every
    /// CPU and a default job beside them (which outranked them), a utility block starts
    /// (the default job runs at a band more important than it, yet nobody runs utility).
    /// Its post wakes a worker for it at once; without that, the watchdog's next tick
    /// raises the credit for it, so this shows the outcome, not the fast path (the
    /// benchmark's `qos-urgent-start` times a post).
    @Test func aBandBetweenTwoRunningBandsGetsAWorker() async {
        await #expect(processExitsWith: .success) {
            let spinners = Spinners(band: .background)
            #expect(spinners.waitUntilEveryWorkerSpins(afterStarting: true))
            let defaultStarted = Atomic<Bool>(false)
            DispatchQueue.global().async(group: spinners.group) {
                defaultStarted.store(true, ordering: .releasing)
                spinners.spinUntilReleased()
            }
            #expect(waitUntil(seconds: 20) { defaultStarted.load(ordering: .acquiring) })
            DispatchQueue.global(qos: .utility).async(group: spinners.group) { spinners.release() }
            spinners.finish(expecting: "the utility block")
        }
    }

    /// At the thread cap, a post more important than the job that makes it stays where a
    /// reserve thread finds it when that job blocks (its LIFO slot, handed off): four
    /// default blocks hold every thread of a cap of four, then each posts to one
    /// user-initiated serial queue and waits for its block. Put on the band's shared
    /// queue, where no reserve thread looked and no thread may start, the drain hung them
    /// (band relief would now reach it there too).
    @Test func atTheCapAMoreImportantPostOfABlockedJobRuns() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let cap = 4
            WorkerPool.shared.lowerThreadCap(to: cap)
            WorkerPool.shared.lowerReserveThreadLimit(to: 2)
            let important = DispatchQueue(label: "test.important", qos: .userInitiated)
            let arrived = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<cap {
                DispatchQueue.global().async(group: group) {
                    arrived.signal()
                    gate.wait()
                    let done = DispatchSemaphore(value: 0)
                    important.async { done.signal() }
                    done.wait()
                }
            }
            for _ in 0..<cap where arrived.wait(timeout: deadline()) == .timedOut {
                say("the four blocks did not all start")
                finishChild(false)
            }
            for _ in 0..<cap { gate.signal() }
            let finished = group.wait(timeout: deadline(seconds: 20)) == .success
            say(finished ? "all four blocks finished" : "the blocks still waited after 20 s:\n" + WorkerPool.shared.stateDescription)
            finishChild(finished)
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }
}

/// Jobs of one band that fill every CPU, each spinning until `release()` (or for 20 s,
/// counted as a give-up with the pool's state at the first).
private final class Spinners: Sendable {
    let band: DispatchQoS.QoSClass
    let group = DispatchGroup()
    private let started = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)
    private let gaveUp = Atomic<Int>(0)
    private let poolAtGiveUp = TestLog<String>()
    private let workers = WorkerPool.shared.cpuCount

    init(band: DispatchQoS.QoSClass) { self.band = band }

    /// Posts a spinning job per CPU and two more (queued behind them); the first calls
    /// `postingFromTheFirst` once every worker spins.
    func start(postingFromTheFirst post: (@Sendable () -> Void)? = nil) {
        for index in 0..<(workers + 2) {
            DispatchQueue.global(qos: band).async(group: group) {
                self.started.add(1, ordering: .relaxed)
                if index == 0, let post {
                    _ = self.waitUntilEveryWorkerSpins()
                    post()
                }
                self.spinUntilReleased()
            }
        }
    }

    /// Waits (up to 20 s) until a job per CPU has started, after `start()` if asked.
    func waitUntilEveryWorkerSpins(afterStarting: Bool = false) -> Bool {
        if afterStarting { start() }
        return waitUntil(seconds: 20) { started.load(ordering: .relaxed) >= workers }
    }

    func release() { released.store(true, ordering: .releasing) }

    func spinUntilReleased() {
        let end = DispatchTime.now() + .seconds(20)
        while !released.load(ordering: .acquiring) {
            if DispatchTime.now() >= end {
                if gaveUp.add(1, ordering: .relaxed).oldValue == 0 { poolAtGiveUp.append(WorkerPool.shared.stateDescription) }
                return
            }
        }
    }

    /// Waits for every job and expects that none gave up before `what` released them.
    func finish(expecting what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success, sourceLocation: sourceLocation)
        let ran = released.load(ordering: .acquiring)
        #expect(ran, "\(what) never ran", sourceLocation: sourceLocation)
        let count = gaveUp.load(ordering: .relaxed)
        #expect(count == 0, "\(count) \(band) jobs spun 20 s without \(what) starting; the pool then:\n\(poolAtGiveUp.values.first ?? "")",
                sourceLocation: sourceLocation)
    }
}
