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

import CBenchSupport

/// The clocks the harness measures with, read directly from the kernel so that neither
/// dispatch library's notion of time takes part in measuring it.
public enum BenchClock {
    /// CLOCK_MONOTONIC in nanoseconds.
    @inlinable public static func now() -> UInt64 { cbs_monotonic_ns() }
    /// CPU time of the whole process (all threads, user + system) in nanoseconds.
    public static func processCPU() -> UInt64 { cbs_process_cpu_ns() }
    /// Sleeps the calling thread.
    public static func sleep(nanoseconds: UInt64) { cbs_sleep_ns(nanoseconds) }

    /// Runs `body` and returns its wall time in nanoseconds along with its result.
    @inlinable
    public static func measure<T>(_ body: () throws -> T) rethrows -> (nanoseconds: UInt64, result: T) {
        let start = now()
        let result = try body()
        return (now() &- start, result)
    }
}
