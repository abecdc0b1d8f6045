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

import CConveyor
import Synchronization
import Testing
@testable import ConveyorCore

/// A job that only carries who pushed it and in what order.
private final class OrderedJob: Job, @unchecked Sendable {
    let producer: Int
    let sequence: Int

    init(producer: Int, sequence: Int) {
        self.producer = producer
        self.sequence = sequence
        super.init(band: .default)
    }

    override func run(on queue: DispatchQueue?) {}
}

/// A list shared by the producers of a test and its consumer.
private final class SharedList: @unchecked Sendable {
    let list = JobList()
}

/// `JobList.pop` with a link wait, as a serial queue's drain asks for it: the consumer
/// keeps every job and the order of each producer, whether a successor is linked before
/// the wait, during it, or only after it gave up (the tail swung back to empty).
@Suite struct JobListLinkWaitTests {
    /// Two producers push in runs separated by pauses of varying length (some shorter,
    /// some longer than the wait); a consumer on a pool worker (where `streamingIfIdle`
    /// waits its long form) pops with each kind of wait in turn.
    @Test(arguments: [JobList.LinkWait.brief, .streamingIfIdle])
    func keepsEveryJobInProducerOrder(linkWait: JobList.LinkWait) async {
        let shared = SharedList()
        let perProducer = 20_000
        let producers = 2
        for producer in 0..<producers {
            startThread {
                for sequence in 0..<perProducer {
                    _ = shared.list.push(OrderedJob(producer: producer, sequence: sequence))
                    if sequence % 97 == 0 {
                        for _ in 0..<(sequence % 5) * 40 { cnv_cpu_relax() }
                    }
                }
            }
        }
        let outcome: (count: Int, inOrder: Bool) = await withCheckedContinuation { done in
            DispatchQueue.global().async {
                var next = [Int](repeating: 0, count: producers)
                var count = 0
                var inOrder = true
                // A lost job would leave this loop waiting: it gives up after 20 s.
                let deadline = Clock.monotonicNanoseconds() + 20_000_000_000
                while count < producers * perProducer && Clock.monotonicNanoseconds() < deadline {
                    guard let job = shared.list.pop(linkWait: count == 0 ? .none : linkWait) else {
                        cnv_cpu_relax()
                        continue
                    }
                    let tagged = job as! OrderedJob
                    if tagged.sequence != next[tagged.producer] { inOrder = false }
                    next[tagged.producer] = tagged.sequence + 1
                    count += 1
                }
                done.resume(returning: (count, inOrder))
            }
        }
        #expect(outcome.count == producers * perProducer)
        #expect(outcome.inOrder)
        let emptyAfter = shared.list.isEmpty
        #expect(emptyAfter)
    }
}
