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

/// Work more important than every job running starts while those jobs compute
/// (`WorkerPool+Urgency.swift`). Before, with every worker inside a CPU-bound job of a
/// less important band, it waited until one of those jobs returned: here, never, since
/// each spins until the important block has run (or for 20 s, and the test fails).
/// libdispatch on Linux runs each QoS class on threads of its own and starts it at once.
@Suite struct UrgentWorkTests {
    /// How the important block is posted: from a thread outside the pool onto a global
    /// queue, or from inside one of the busy jobs onto a serial queue (its drain would have
    /// gone to that worker's LIFO slot, behind the job that posts it).
    enum Poster: Sendable, CustomStringConvertible {
        case outsideOntoGlobal
        case busyJobOntoSerial
        var description: String { self == .outsideOntoGlobal ? "from outside onto a global queue" : "from a busy job onto a serial queue" }
    }

    @Test(arguments: [
        (DispatchQoS.QoSClass.default, DispatchQoS.QoSClass.userInitiated, Poster.outsideOntoGlobal),
        (.default, .userInteractive, .busyJobOntoSerial),
        (.background, .default, .outsideOntoGlobal),
        (.utility, .userInitiated, .busyJobOntoSerial),
    ])
    func moreImportantWorkStartsWhileEveryWorkerComputes(busy: DispatchQoS.QoSClass, important: DispatchQoS.QoSClass, poster: Poster) {
        let workers = WorkerPool.shared.cpuCount
        let busyJobs = workers + 2
        let busyStarted = Atomic<Int>(0)
        let importantRan = Atomic<Bool>(false)
        let gaveUp = Atomic<Int>(0)
        let poolAtGiveUp = TestLog<String>()
        let group = DispatchGroup()
        let importantQueue = DispatchQueue(label: "important", qos: DispatchQoS(qosClass: important, relativePriority: 0))
        let postImportant: @Sendable () -> Void = {
            let target: DispatchQueue = poster == .outsideOntoGlobal ? .global(qos: important) : importantQueue
            target.async(group: group) { importantRan.store(true, ordering: .releasing) }
        }
        for index in 0..<busyJobs {
            DispatchQueue.global(qos: busy).async(group: group) {
                busyStarted.add(1, ordering: .relaxed)
                if index == 0 && poster == .busyJobOntoSerial {
                    // Once every worker is inside a busy job, as the other case waits for.
                    _ = waitUntil(seconds: 20) { busyStarted.load(ordering: .relaxed) >= workers }
                    postImportant()
                }
                let end = DispatchTime.now() + .seconds(20)
                while !importantRan.load(ordering: .acquiring) {
                    if DispatchTime.now() >= end {
                        if gaveUp.add(1, ordering: .relaxed).oldValue == 0 { poolAtGiveUp.append(WorkerPool.shared.stateDescription) }
                        return
                    }
                }
            }
        }
        if poster == .outsideOntoGlobal {
            #expect(waitUntil(seconds: 20) { busyStarted.load(ordering: .relaxed) >= workers })
            postImportant()
        }
        #expect(group.wait(timeout: deadline(seconds: 60)) == .success)
        let ran = importantRan.load(ordering: .acquiring)
        #expect(ran)
        #expect(gaveUp.load(ordering: .relaxed) == 0,
                "\(gaveUp.load(ordering: .relaxed)) \(busy) jobs spun 20 s without the \(important) block starting; the pool then:\n\(poolAtGiveUp.values.first ?? "")")
    }
}
