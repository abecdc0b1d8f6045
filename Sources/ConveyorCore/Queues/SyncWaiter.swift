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

/// A thread waiting in `sync`, standing in a queue's item list like any other job.
///
/// When the drain reaches it, the drain grants it the right to run: the whole drain of a
/// serial queue (`handoff`: the waiter runs on its own thread, then ends the drain), one
/// unit of a concurrent queue's width, or a concurrent queue's barrier; the waiter then
/// goes on to the next level of its target chain (see `SyncChain.swift`). Only where the
/// work must run on the main thread (the main queue and queues whose targets lead to it)
/// does the drain run the waiter's closure itself (`proxied`) and then wake it.
@usableFromInline
final class SyncWaiter: Job, @unchecked Sendable {
    @usableFromInline
    enum Grant: UInt32 {
        case none = 0, handoff, width, barrier, proxied
    }

    private let word = FutexWord(Grant.none.rawValue)
    /// The caller's work (made escaping for the wait only; cleared before `sync` returns).
    @usableFromInline var body: (() -> Void)?
    /// Whether the drain runs `body` itself (main-bound queues only).
    let runsByProxy: Bool

    @usableFromInline
    init(band: QoSBand, isBarrier: Bool, runsByProxy: Bool) {
        self.runsByProxy = runsByProxy
        super.init(band: band, isBarrier: isBarrier)
    }

    deinit { word.deallocate() }

    @usableFromInline
    override var syncWaiter: SyncWaiter? { self }

    /// Drain side: let the waiting thread go on with `grant`.
    func grant(_ grant: Grant) {
        word.store(grant.rawValue)
        word.wake(1)
    }

    /// Drain side: run the waiter's work here, then release the waiter.
    func runByProxy() {
        body!()
        grant(.proxied)
    }

    /// Waiting side: block until granted (after a short spin, since hand-offs are quick).
    @usableFromInline
    func waitForGrant() -> Grant {
        for _ in 0..<200 {
            let value = word.load()
            if value != Grant.none.rawValue { return Grant(rawValue: value)! }
            cnv_cpu_relax()
        }
        return withBlockingHint {
            while true {
                let value = word.load()
                if value != Grant.none.rawValue { return Grant(rawValue: value)! }
                word.wait(expected: Grant.none.rawValue)
            }
        }
    }
}
