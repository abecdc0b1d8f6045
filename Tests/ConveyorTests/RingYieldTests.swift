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
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A job that only says which one it is.
private final class BandJob: Job, @unchecked Sendable {
    let number: Int

    init(_ number: Int, band: QoSBand) {
        self.number = number
        super.init(band: band)
    }

    override func run(on queue: DispatchQueue?) {}
}

/// What a worker takes next when its ring holds work and a shared queue holds more
/// important work (`WorkerPool.findJob`). A job's posts of its own band stay on its ring
/// whatever the band (`WorkerPool.workerKeeping`, so that they are handed off when it
/// blocks); behind a background job's posts, a default block on its band's shared queue
/// must still go first, as it did when those posts went to the background band's shared
/// queue. In a child process: the pool there has no thread, so nothing else takes the
/// shared queue's job (it is pushed without a wake-up).
@Suite struct RingYieldTests {
    /// The number of the job a worker takes next whose last job was of `runningBand`, with
    /// three jobs of `ringBand` on its ring (kept there as a job of that band's posts,
    /// `Worker.ringBandFloor`), while the shared queue of `waiting` holds one.
    private static func firstTaken(runningBand: QoSBand, ringBand: QoSBand? = nil, waiting: QoSBand) -> Int {
        let pool = WorkerPool.shared
        let worker = Worker(index: 0)
        let ringBand = ringBand ?? runningBand
        worker.runningBand = runningBand
        worker.ringBandFloor = max(ringBand.rawValue, QoSBand.default.rawValue)
        for number in 0..<3 { _ = worker.local.push(BandJob(number, band: ringBand)) }
        _ = pool.pushInjected(BandJob(100, band: waiting))
        return (pool.findJob(for: worker) as? BandJob)?.number ?? -1
    }

    @Test func aBackgroundJobsRingYieldsToDefaultWork() async {
        await #expect(processExitsWith: .exitCode(0)) {
            exit(Self.firstTaken(runningBand: .background, waiting: .default) == 100 ? 0 : 1)
        }
    }

    /// Whatever the band of the worker's last job: after a default job it took instead of
    /// its ring, the ring of background posts yields again (with the last job's band, it
    /// got every other turn, a review found).
    @Test func aRingOfBackgroundPostsYieldsAfterADefaultJobToo() async {
        await #expect(processExitsWith: .exitCode(0)) {
            exit(Self.firstTaken(runningBand: .default, ringBand: .background, waiting: .default) == 100 ? 0 : 1)
        }
    }

    @Test func aUtilityJobsRingYieldsToUserInitiatedWork() async {
        await #expect(processExitsWith: .exitCode(0)) {
            exit(Self.firstTaken(runningBand: .utility, waiting: .userInitiated) == 100 ? 0 : 1)
        }
    }

    /// Work of the ring's own band, or of a less important one, waits for the ring.
    @Test func aRingGoesBeforeWorkOfItsOwnOrALessImportantBand() async {
        await #expect(processExitsWith: .exitCode(0)) {
            exit(Self.firstTaken(runningBand: .background, waiting: .background) == 0 ? 0 : 1)
        }
        await #expect(processExitsWith: .exitCode(0)) {
            exit(Self.firstTaken(runningBand: .default, waiting: .utility) == 0 ? 0 : 1)
        }
    }
}
