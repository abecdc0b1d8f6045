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

/// Catches blocking that Conveyor cannot see (a `read`, a foreign lock): every `interval`
/// while work is queued, it counts the workers the kernel shows asleep inside a job and
/// lets the pool run that many extra workers, and hands the LIFO jobs of workers stuck
/// inside one job to the pool, and sets the pool's urgent credit afresh
/// (`WorkerPool.watchTick`). It sleeps without a timeout
/// whenever no work is queued, so an idle process uses no CPU.
final class Watchdog: @unchecked Sendable {
    /// The period of its look at the workers while work is queued (a worker must be seen
    /// asleep inside the same job at two looks to count as blocked).
    let intervalNanoseconds: Int64 = 10_000_000

    private static let awake: UInt32 = 0
    private static let sleeping: UInt32 = 1
    private let word = FutexWord(Watchdog.awake)
    private let started = Atomic<Bool>(false)
    private let workerWanted = Atomic<Bool>(false)
    /// The band a requested worker is for, when nobody runs that band while a less
    /// important one runs (`WorkerPool.wakeOrStartWorker(urgentBand:)`), or
    /// `Worker.noUrgentBand`. One band: of two requests at once, the watchdog's next tick
    /// serves the other (`wakeWorkerForUnservedUrgentWork`).
    private let urgentBandWanted = Atomic<UInt8>(Worker.noUrgentBand)
    /// A ring of the watchdog thread's own, always empty between uses: stealing the ring
    /// of a worker stuck at the cap goes through it (`WorkerPool.handOffRing`).
    let scratchRing = LocalRunQueue()
    /// The stall breaker's memory between ticks (`WorkerPool.breakStall`); touched by the
    /// watchdog's thread only.
    var stallWatch = StallWatch()

    init() {}

    func startIfNeeded(pool: WorkerPool) {
        if started.load(ordering: .relaxed) { return }
        if started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            _ = cnv_thread_start({ _ in watchdogThreadEntry() }, nil, 256 * 1024)
        }
    }

    /// Work was queued while all workers were busy: make sure the watchdog is looking.
    @inline(__always)
    func poke() {
        if word.load() == Self.sleeping, word.exchange(Self.awake) == Self.sleeping {
            word.wake(1)
        }
    }

    /// Asks the watchdog thread to wake or start a worker (for a thread whose nice value
    /// a new thread must not inherit), for `urgentBand`'s work if given.
    func requestWorker(pool: WorkerPool, urgentBand: QoSBand? = nil) {
        startIfNeeded(pool: pool)
        if let urgentBand { urgentBandWanted.store(urgentBand.rawValue, ordering: .relaxed) }
        workerWanted.store(true, ordering: .sequentiallyConsistent)
        _ = word.exchange(Self.awake)
        word.wake(1)   // from an untimed or a timed sleep
    }

    func run(pool: WorkerPool) {
        ThreadInfo.setName("conveyor.watch")
        ThreadInfo.setNice(0)   // threads it starts inherit its nice value
        var watched: [WatchedWorker] = []
        while true {
            if workerWanted.exchange(false, ordering: .sequentiallyConsistent) {
                // Read after the exchange, which the requester's store of the band precedes.
                let band = urgentBandWanted.exchange(Worker.noUrgentBand, ordering: .relaxed)
                pool.wakeOrStartWorker(urgentBand: QoSBand(rawValue: band))
            }
            if !pool.hasVisibleWork(includingLIFO: true) {
                // Nobody needs compensation while no work waits. The urgent credit stays
                // while its band runs (a job of it whose posts then go to its own worker
                // must not find that worker surplus).
                pool.credit.store(0, ordering: .relaxed)
                pool.refreshUrgentCredit()
                pool.settleStallAllowance()
                word.store(Self.sleeping)
                // Dekker pairing with `poke()` after a producer's publish and fence
                // (`WorkerPool.notifyWorkAvailable`), and with `requestWorker`: this
                // store of `sleeping` must be ordered before the look for work below, or
                // a producer that published, then read `awake`, would not wake us while
                // we go on to miss its job.
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                if pool.hasVisibleWork(includingLIFO: true) || workerWanted.load(ordering: .sequentiallyConsistent) {
                    word.store(Self.awake)
                } else {
                    word.wait(expected: Self.sleeping)
                }
                continue
            }
            // Sleep one interval (the word stays `awake`, so this is a timed sleep).
            word.wait(expected: Self.awake, timeoutNanoseconds: intervalNanoseconds)
            pool.watchTick(&watched)
        }
    }
}

private func watchdogThreadEntry() -> UnsafeMutableRawPointer? {
    WorkerPool.shared.watchdog.run(pool: WorkerPool.shared)
    return nil
}
