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

import Synchronization

// The stall breaker: one more reserve thread, past what the reserve's rules allow, when the
// watchdog sees the pool stalled.
//
// The reserve's rules (`WorkerPool+Reserve.swift`) keep a thread for the posts that blocked
// jobs wait for, but which handed-off job is such a post is a guess: a blocked worker's
// LIFO slot and the newer half of its ring count as its posts, and they may be more
// waiters (items of a concurrent queue that the worker took before it blocked, a drain
// posted again), while what they wait for counts as pushed behind. Background blocks that
// post and wait at a cap of 4 with two reserve threads stalled so under ThreadSanitizer
// beside two CPU burners, the concurrent-queue case in 4 runs of 4: the eight reserve
// threads the ceiling allows all blocked in "posts", the post they waited for queued
// behind them, no thread running.
//
// libdispatch's Linux pool adds a thread when its monitor finds a pool with work queued and
// no thread runnable, up to its 255; this does the same past Conveyor's limits. At a tick
// the pool is stalled when it is at the thread cap, no worker runs but those the watchdog
// counted as blocked (`credit`), every reserve thread is blocked in a Conveyor wait, work a
// reserve thread may take is queued (the hand-off queue, or a band that needs relief:
// `bandNeedingRelief`), and no thread started a job since the previous tick. Seen at two
// ticks in a row (about 20 ms), the allowance (`stallAllowance`, added to the ceiling and
// so to the turns for jobs pushed behind) rises to one more than the room the breaker's
// threads take, and a reserve thread starts: past the ceiling, or below it for a turn
// when every turn for jobs pushed behind is held. Each blocked thread it adds is a waiter
// whose post comes later in the queue, so the one after it comes closer to that post. The
// allowance falls back to the room its threads still take at ticks that find no stall,
// from about 0.5 s after its last start (the thread it started must first take its turn),
// and when the watchdog sleeps with no work visible. It stops at `stallThreadLimit`, so a
// chain of more mistaken posts than that, or a real deadlock (waiters whose posts never
// come), still hangs, at that many threads more rather than an unbounded number.
//
// Not seen as a stall: a reserve thread blocked where Conveyor cannot see, a worker that
// spins while it waits, and the bands' shared queues of bands at the cap: a band whose own
// jobs fill every thread is what the cap is for (FaultTests' exhausted cap sees new blocks
// wait), as on libdispatch at its 255.
extension WorkerPool {
    /// The most reserve threads the stall breaker adds past `reserveOwnCeiling`.
    static let stallThreadLimit = 64

    /// How many ticks after its last start the breaker keeps the allowance it gave, at
    /// least (about 0.5 s): the thread it started may not have taken its turn yet.
    static let stallAllowanceHoldTicks = 50

    /// At the end of each watchdog tick (`watchTick`, on the watchdog's thread): starts a
    /// reserve thread if the pool was stalled at this tick and the previous one with no job
    /// started between them (`progress`, the sum of the workers' started-job counts), and
    /// otherwise lets the allowance fall back (`settleStallAllowance`).
    func breakStall(progress: UInt64, atCap: Bool, _ watch: inout StallWatch) {
        let reserve = reserveThreads.load(ordering: .relaxed)
        let stalled = atCap
            && running.load(ordering: .sequentiallyConsistent) <= credit.load(ordering: .relaxed)
            && blockedReserveThreads.load(ordering: .relaxed) >= reserve
            && (!handedOff.isEmpty || bandNeedingRelief() != nil)
        defer { watch.progress = progress }
        watch.ticksSinceBreak &+= 1
        guard stalled else {
            watch.stalledTicks = 0
            if watch.ticksSinceBreak >= Self.stallAllowanceHoldTicks { settleStallAllowance() }
            return
        }
        watch.stalledTicks = progress == watch.progress ? watch.stalledTicks + 1 : 1
        let taken = stallRoomTaken()
        guard watch.stalledTicks >= 2, taken < Self.stallThreadLimit else { return }
        watch.stalledTicks = 0
        watch.ticksSinceBreak = 0
        stallAllowance.store(taken + 1, ordering: .relaxed)
        if startReserveForStalledWork() { stallBreaks.wrappingAdd(1, ordering: .relaxed) }
    }

    /// The room the breaker's threads take now: reserve threads past `reserveOwnCeiling`,
    /// or turns for jobs pushed behind past the `behindTurns` that ceiling gives (below it
    /// in count, the breaker's thread may be there for a turn: all seven turns of a reserve
    /// limit of 2 held, no post, one thread more for a behind job).
    private func stallRoomTaken() -> Int {
        let base = reserveOwnCeiling
        return max(0, reserveThreads.load(ordering: .relaxed) - base,
                   reserveThreadsBehind.load(ordering: .relaxed) - (base - 1))
    }

    /// Lowers the allowance to the room the breaker's threads still take (threads alive
    /// keep theirs: a lower allowance refuses new starts only, `claimReserveWorkerIfStuck`,
    /// as the ceiling does). At ticks that find no stall, from `stallAllowanceHoldTicks`
    /// after the last start, and when the watchdog goes to sleep with no work visible.
    func settleStallAllowance() {
        let taken = stallRoomTaken()
        if stallAllowance.load(ordering: .relaxed) > taken { stallAllowance.store(taken, ordering: .relaxed) }
    }
}

/// What the stall breaker remembers between two watchdog ticks (`WorkerPool.breakStall`).
struct StallWatch {
    /// The sum of the workers' started-job counts at the previous tick.
    var progress: UInt64 = .max
    /// Ticks in a row that found the pool stalled, with no job started since the first.
    var stalledTicks = 0
    /// Ticks since the breaker last started a thread.
    var ticksSinceBreak = 0
}
