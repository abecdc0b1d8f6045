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

// The stall breaker: one more reserve thread, past the reserve's ceiling, when the
// watchdog sees the pool stalled.
//
// The reserve's rules (`WorkerPool+Reserve.swift`) keep a thread for the posts that blocked
// jobs wait for, but which handed-off job is such a post is a guess: a blocked worker's
// LIFO slot and the newer half of its ring count as its posts, and they may be more
// waiters (items of a concurrent queue that the worker took before it blocked, a drain
// posted again). Background blocks that post and wait at a cap of 4 with two reserve
// threads stalled so under ThreadSanitizer beside two CPU burners, the concurrent-queue
// case in 4 runs of 4: the eight reserve threads the ceiling allows all blocked in
// "posts", the post they waited for queued behind them, no thread running.
//
// libdispatch's Linux pool adds a thread when its monitor finds a pool with work queued and
// no thread runnable, up to its 255; this does the same past Conveyor's ceiling. At a tick
// the pool is stalled when it is at the thread cap, no worker runs but those the watchdog
// counted as blocked (`credit`), every reserve thread is blocked in a Conveyor wait, work a
// reserve thread may take is queued (the hand-off queue, or a band that needs relief:
// `bandNeedingRelief`), and no thread started a job since the previous tick. Seen at two
// ticks in a row (about 20 ms), the ceiling rises by one (`stallAllowance`) and a reserve
// thread starts. Each blocked reserve thread it adds is a waiter whose post comes later in
// the queue, so the one after it comes closer to that post. At a tick that finds no stall
// the allowance falls back to the room its threads still take (they exit as reserve
// threads do, once nothing is left that they may take). It stops at `stallThreadLimit`,
// so a real deadlock (waiters whose posts never come) costs that many threads, not an
// unbounded number.
//
// Not the bands' shared queues of bands at the cap: a band whose own jobs fill every
// thread is what the cap is for (FaultTests' exhausted cap sees new blocks wait), as on
// libdispatch at its 255.
extension WorkerPool {
    /// The most reserve threads the stall breaker adds past `4 * reserveThreadLimit`.
    static let stallThreadLimit = 64

    /// At the end of each watchdog tick (`watchTick`, on the watchdog's thread): starts a
    /// reserve thread past the ceiling if the pool was stalled at this tick and the
    /// previous one with no job started between them (`progress`, the sum of the workers'
    /// started-job counts), and lets the allowance fall back to the room its threads still
    /// take otherwise.
    func breakStall(progress: UInt64, atCap: Bool, _ watch: inout StallWatch) {
        let reserve = reserveThreads.load(ordering: .relaxed)
        // The room the breaker's threads take now: reserve threads past the ceiling, or
        // turns for jobs pushed behind past `behindTurns` without it (a thread it added
        // may hold one while the reserve's count is back under the ceiling).
        let base = 4 * reserveThreadLimit
        let aboveCeiling = max(0, reserve - base, reserveThreadsBehind.load(ordering: .relaxed) - (base - 1))
        let stalled = atCap
            && running.load(ordering: .sequentiallyConsistent) <= credit.load(ordering: .relaxed)
            && blockedReserveThreads.load(ordering: .relaxed) >= reserve
            && (!handedOff.isEmpty || bandNeedingRelief() != nil)
        defer { watch.progress = progress }
        guard stalled else {
            watch.stalledTicks = 0
            // Threads it added that still live keep their room: a lower allowance refuses
            // new starts only (`claimReserveWorkerIfStuck`), as the ceiling does.
            if stallAllowance.load(ordering: .relaxed) > aboveCeiling {
                stallAllowance.store(aboveCeiling, ordering: .relaxed)
            }
            return
        }
        watch.stalledTicks = progress == watch.progress ? watch.stalledTicks + 1 : 1
        guard watch.stalledTicks >= 2, aboveCeiling < Self.stallThreadLimit else { return }
        watch.stalledTicks = 0
        stallAllowance.store(aboveCeiling + 1, ordering: .relaxed)
        if startReserveForStalledWork() { stallBreaks.wrappingAdd(1, ordering: .relaxed) }
    }
}

/// What the stall breaker remembers between two watchdog ticks (`WorkerPool.breakStall`).
struct StallWatch {
    /// The sum of the workers' started-job counts at the previous tick.
    var progress: UInt64 = .max
    /// Ticks in a row that found the pool stalled, with no job started since the first.
    var stalledTicks = 0
}
