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

import Testing
@testable import ConveyorCore

/// A job that only carries a number.
private final class NumberedJob: Job, @unchecked Sendable {
    let number: Int

    init(_ number: Int) {
        self.number = number
        super.init(band: .default)
    }

    override func run(on queue: DispatchQueue?) {}
}

/// What the watchdog takes from the ring of a worker stuck inside one job
/// (`HandOffQueue.takeRing`): the jobs the ring held before that job began are not its
/// posts, and go behind every post held. The composition tester hung (C API, cap 4 with 2
/// reserve threads, as nobody) when a worker preempted inside a crowd member it had just
/// begun held the rest of its batch, more members, and the watchdog handed them off ahead
/// of a busy poster's gate opener, handed off at the same tick: they took every reserve
/// thread and waited for the opener.
@Suite struct HandOffRingTests {
    /// Ring: 0, 1, 2 taken before the job began (a batch), 3, 4 posted by the job. The
    /// queue already holds 100, a post (another stuck worker's LIFO job, the gate opener).
    private func takeTheRing(postsAhead: Bool) -> HandOffQueue {
        let worker = Worker(index: 0)
        for number in 0..<3 { #expect(worker.local.push(NumberedJob(number))) }
        worker.ringTailAtJobStart.store(worker.local.tailPosition, ordering: .relaxed)
        for number in 3..<5 { #expect(worker.local.push(NumberedJob(number))) }
        let queue = HandOffQueue()
        var opener: Job? = NumberedJob(100)
        #expect(queue.pushBatch(at: 1) { opener.take() })
        #expect(queue.takeRing(of: worker, through: LocalRunQueue(), postsAhead: postsAhead) == false)
        #expect(worker.local.isEmpty)
        return queue
    }

    /// The numbers `pop` gives, posts only first, then any.
    private func drain(_ queue: HandOffQueue) -> (posts: [Int], rest: [Int]) {
        var posts: [Int] = []
        var rest: [Int] = []
        while let job = queue.pop(at: 2, agingAfter: .max, share: 1, postsOnly: true) { posts.append((job as! NumberedJob).number) }
        while let job = queue.pop(at: 2, agingAfter: .max, share: 1) { rest.append((job as! NumberedJob).number) }
        #expect(queue.isEmpty)
        return (posts, rest)
    }

    /// The job posted nothing since the watchdog's previous tick: its posts go ahead of
    /// everything, the opener next, and the batch behind both.
    @Test func aStuckJobsPostsGoAheadAndTheBatchItTookBeforeGoesBehind() {
        let (posts, rest) = drain(takeTheRing(postsAhead: true))
        #expect(posts == [3, 4, 100])
        #expect(rest == [0, 1, 2])
    }

    /// The job still posts: its posts go behind too, after the batch, in the ring's order;
    /// the opener stays the one post.
    @Test func aJobStillPostingHasEveryRingJobGoBehindInOrder() {
        let (posts, rest) = drain(takeTheRing(postsAhead: false))
        #expect(posts == [100])
        #expect(rest == [0, 1, 2, 3, 4])
    }
}
