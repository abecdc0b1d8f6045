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

/// Blocks that post work of another QoS class and wait for it, at a cap of 4 threads with
/// two reserve threads: every pool thread comes to wait, and the posts sit on another
/// band's shared queue, where only band relief reaches them
/// (`WorkerPool+BandRelief.swift`; libdispatch has a pool per global queue). Before it,
/// default blocks posting background work hung every time (the composition tester's
/// `postAndWait`, program 771013229, at a cap of 8), and utility blocks posting
/// user-initiated work in most runs. Child processes: a failure holds every thread.
@Suite(.serialized) struct PostToAnotherBandTests {
    /// The QoS classes of one case: of the waiting blocks and of what they post.
    /// Background blocks posting default work stalled in 2 runs of about 9 under
    /// ThreadSanitizer, every thread waiting and only jobs pushed behind handed off, until
    /// the stall breaker (`WorkerPool+StallBreaker.swift`).
    struct Bands: Codable, Sendable, CustomTestStringConvertible {
        let waiters: PostAndWaitTests.Band
        let posts: PostAndWaitTests.Band
        var testDescription: String { "\(waiters) blocks posting \(posts) work" }

        static let cases: [Bands] = [
            Bands(waiters: .default, posts: .background),
            Bands(waiters: .utility, posts: .userInitiated),
            Bands(waiters: .userInitiated, posts: .utility),
            Bands(waiters: .background, posts: .default),
        ]
    }

    @Test(arguments: Bands.cases)
    func blocksThatPostToAnotherBandAndWaitFinishAtTheCap(_ bands: Bands) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [bands] in
            WorkerPool.shared.lowerThreadCap(to: 4)
            WorkerPool.shared.lowerReserveThreadLimit(to: 2)
            let target = DispatchQueue.global(qos: bands.posts.qos)
            PostAndWaitTests.allFinish(20_000, on: .global(qos: bands.waiters.qos)) { signal in target.async { signal() } }
        }
        expectNoFailureReport(result)
    }

    /// At the cap, every thread but one waits, and that one stays inside a job that posted
    /// what they wait for to another band's shared queue, then computes until it ran. One
    /// thread still runs, so no wait claims a reserve thread, and nothing was handed off:
    /// the watchdog's tick starts one for the band's work (`watchTick`; a review found it
    /// missing). libdispatch runs the post on that band's pool.
    @Test func aBusyJobsPostToAnotherBandRunsAtTheCapWhileEveryOtherThreadWaits() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            PostAndWaitTests.waitersOfABusyPosterAtTheCap { DispatchQueue.global(qos: .background).async(execute: $0) }
        }
        expectNoFailureReport(result)
    }
}
