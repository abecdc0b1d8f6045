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

/// A job that only carries who pushed it and in what order, and counts its deinit.
private final class TaggedJob: Job, @unchecked Sendable {
    let producer: Int
    let sequence: Int
    let freed: FreedCount?

    init(producer: Int = 0, sequence: Int, freed: FreedCount? = nil) {
        self.producer = producer
        self.sequence = sequence
        self.freed = freed
        super.init(band: .default)
    }

    deinit { freed?.value.add(1, ordering: .relaxed) }

    override func run(on queue: DispatchQueue?) {}
}

private final class FreedCount: Sendable {
    let value = Atomic<Int>(0)
}

/// The queue shared by the threads of a test, with what they report.
private final class SharedQueue: @unchecked Sendable {
    let queue = SegmentedJobQueue()
    /// Bumped by a producer whose push reported an empty queue (the pool's wake-up).
    let wakeups = FutexWord(0)
    let producersDone = FutexWord(0)
    let perProducer: Int
    let producers: Int
    init(producers: Int, perProducer: Int) {
        self.producers = producers
        self.perProducer = perProducer
    }
    deinit {
        wakeups.deallocate()
        producersDone.deallocate()
    }

    func push(_ job: TaggedJob) -> Bool {
        queue.push(retained: Unmanaged<Job>.passRetained(job))
    }
}

@Suite struct SegmentedJobQueueTests {
    private static let slots = SegmentedJobQueue.slotsPerSegment

    /// One thread: order is kept across several segments, and only a push onto an empty
    /// queue (at the start, and after the consumer took the last job) says so.
    @Test func keepsOrderAcrossSegmentsAndReportsEmptyOnlyWhenDrained() {
        let queue = SegmentedJobQueue()
        let emptyAtStart = queue.isEmpty
        #expect(emptyAtStart)
        let nothingAtStart = queue.pop() == nil
        #expect(nothingAtStart)
        let count = Self.slots * 3 + 7
        var reportedEmpty = [Int]()
        for sequence in 0..<count where queue.push(retained: .passRetained(TaggedJob(sequence: sequence))) {
            reportedEmpty.append(sequence)
        }
        #expect(reportedEmpty == [0])
        let emptyWhenFilled = queue.isEmpty
        #expect(!emptyWhenFilled)
        for sequence in 0..<count {
            let job = queue.pop() as? TaggedJob
            #expect(job?.sequence == sequence)
        }
        let nothingLeft = queue.pop() == nil
        #expect(nothingLeft)
        let emptyWhenDrained = queue.isEmpty
        #expect(emptyWhenDrained)
        let pushOntoDrainedReportsEmpty = queue.push(retained: .passRetained(TaggedJob(sequence: count)))
        #expect(pushOntoDrainedReportsEmpty)
        let secondPushReportsEmpty = queue.push(retained: .passRetained(TaggedJob(sequence: count + 1)))
        #expect(!secondPushReportsEmpty)
        let firstIsNext = (queue.pop() as? TaggedJob)?.sequence == count
        #expect(firstIsNext)
        let secondIsNext = (queue.pop() as? TaggedJob)?.sequence == count + 1
        #expect(secondIsNext)
        let emptyAgain = queue.isEmpty
        #expect(emptyAgain)
    }

    /// Draining exactly to a segment's end (the consumer then steps over the gap into the
    /// next segment) leaves the queue empty, marked, and usable.
    @Test func drainsToASegmentBoundary() {
        let queue = SegmentedJobQueue()
        for round in 0..<3 {
            for sequence in 0..<Self.slots {
                let first = queue.push(retained: .passRetained(TaggedJob(sequence: sequence)))
                #expect(first == (sequence == 0), "round \(round), job \(sequence)")
            }
            for sequence in 0..<Self.slots {
                let inOrder = (queue.pop() as? TaggedJob)?.sequence == sequence
                #expect(inOrder)
            }
            let nothingLeft = queue.pop() == nil
            #expect(nothingLeft)
            let empty = queue.isEmpty
            #expect(empty)
        }
    }

    /// Waiting for a batch returns at once on an empty queue, and soon with fewer jobs
    /// when no producer adds more; the jobs are then taken as usual.
    @Test func waitingForABatchGivesUpWhenNoMoreCome() {
        let queue = SegmentedJobQueue()
        queue.awaitSomeJobs(16)
        let nothing = queue.pop() == nil
        #expect(nothing)
        for sequence in 0..<3 { _ = queue.push(retained: .passRetained(TaggedJob(sequence: sequence))) }
        queue.awaitSomeJobs(16)
        for sequence in 0..<3 {
            let next = (queue.pop() as? TaggedJob)?.sequence == sequence
            #expect(next)
        }
        let drained = queue.isEmpty
        #expect(drained)
    }

    /// Jobs still queued when the queue goes away are released, and nothing else.
    @Test func releasesQueuedJobsWhenFreed() {
        let freed = FreedCount()
        do {
            let queue = SegmentedJobQueue()
            for sequence in 0..<(Self.slots + 10) {
                _ = queue.push(retained: .passRetained(TaggedJob(sequence: sequence, freed: freed)))
            }
            for _ in 0..<5 { _ = queue.pop() }
            #expect(freed.value.load(ordering: .relaxed) == 5)
        }
        #expect(freed.value.load(ordering: .relaxed) == Self.slots + 10)
    }

    /// Four producers against one consumer that sleeps whenever it finds the queue empty
    /// and is woken only by a producer whose push reported an empty queue (the pool's
    /// protocol). Every job arrives once, each producer's in its order, and no wake-up is
    /// lost: a lost one leaves the consumer asleep with jobs queued (the 20 s bound).
    @Test func producersAndASleepingConsumerLoseNoJobAndNoWakeup() {
        let shared = SharedQueue(producers: 4, perProducer: 40_000)
        for producer in 0..<shared.producers {
            let context = Unmanaged.passRetained(Box(shared, producer)).toOpaque()
            let started = cnv_thread_start({ argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                let shared = box.shared
                for sequence in 0..<shared.perProducer
                where shared.push(TaggedJob(producer: box.producer, sequence: sequence)) {
                    _ = shared.wakeups.fetchAdd(1)
                    shared.wakeups.wakeAll()
                }
                _ = shared.producersDone.fetchAdd(1)
                return nil
            }, context, 0)
            #expect(started == 0)
        }
        var next = [Int](repeating: 0, count: shared.producers)
        var received = 0, outOfOrder = 0, sleeps = 0
        let total = shared.producers * shared.perProducer
        let deadline = Clock.monotonicNanoseconds() + 20_000_000_000
        while received < total {
            let seen = shared.wakeups.load()
            shared.queue.awaitSomeJobs(16)   // as a worker taking a batch does
            while let job = shared.queue.pop() as? TaggedJob {
                if job.sequence != next[job.producer] { outOfOrder += 1 }
                next[job.producer] = job.sequence + 1
                received += 1
            }
            if received == total { break }
            let now = Clock.monotonicNanoseconds()
            if now >= deadline { break }
            sleeps += 1
            _ = shared.wakeups.wait(expected: seen, timeoutNanoseconds: Int64(deadline - now))
        }
        #expect(received == total, "consumer stuck with \(total - received) jobs unseen after \(sleeps) sleeps")
        #expect(outOfOrder == 0)
        let emptyAtEnd = shared.queue.isEmpty
        #expect(emptyAtEnd)
        while shared.producersDone.load() != UInt32(shared.producers) { cnv_thread_yield() }
    }
}

/// A producer thread's arguments.
private final class Box: @unchecked Sendable {
    let shared: SharedQueue
    let producer: Int
    init(_ shared: SharedQueue, _ producer: Int) {
        self.shared = shared
        self.producer = producer
    }
}
