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

/// Settings of the worker pool for Conveyor's own test programs (the composition tester's
/// `--thread-cap`), not for users' programs: imported with
/// `@_spi(ConveyorTesting) import ConveyorCore`.
@_spi(ConveyorTesting)
public enum PoolTestingHooks {
    /// The most threads the pool starts for queued work: max(255, 4 × CPUs) unless lowered.
    /// Reserve threads, which run work that blocked threads handed off and the work of a
    /// band that fewer threads than this are inside, come on top.
    public static var threadCap: Int { WorkerPool.shared.maxThreads }

    /// Lowers the pool's thread cap to `cap` (never below 1, never raised), so that a test
    /// program reaches it with a few blocked threads instead of hundreds. Call it before
    /// the program submits work: threads started already stay.
    public static func lowerThreadCap(to cap: Int) {
        WorkerPool.shared.lowerThreadCap(to: cap)
    }

    /// The most reserve threads that run at once (those blocked in a Conveyor wait do not
    /// count): max(8, CPUs) unless lowered.
    public static var reserveThreadLimit: Int { WorkerPool.shared.reserveThreadLimit }

    /// Lowers the reserve thread limit to `limit` (never below 2, never raised), so that a
    /// test program needs few blocked reserve threads to reach it. Call it before the
    /// program submits work.
    public static func lowerReserveThreadLimit(to limit: Int) {
        WorkerPool.shared.lowerReserveThreadLimit(to: limit)
    }

    /// The pool's state in a few lines, for a test program's report of a hang: its
    /// counters, each band's shared queue and the hand-off queue, and each worker slot
    /// (thread id, parked or reserve, inside a job, in a Conveyor wait, jobs started,
    /// LIFO slot and ring). A snapshot of a running pool: the counters are read one after
    /// the other without stopping anything, and the slots' flags under the pool's lock
    /// (left out, saying so, if the lock stays held for a second).
    public static var stateDescription: String { WorkerPool.shared.stateDescription }
}
