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

/// A fixed amount of CPU-bound work, calibrated once per process so that both libraries run
/// exactly the same instructions per task ("~10 µs of work").
public enum SpinWork {
    /// Runs `rounds` steps of a xorshift generator seeded with `seed`; the result depends on
    /// every step, so the compiler cannot skip any, and lets callers check the work was done.
    @inline(never)
    public static func run(seed: UInt64, rounds: Int) -> UInt64 {
        var x = seed | 1
        for _ in 0..<rounds {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
        }
        return x
    }

    /// Rounds that take about 10 µs on one core of this machine (median of several tries).
    public static let roundsPer10Microseconds: Int = calibrate(targetNanoseconds: 10_000)

    private static func calibrate(targetNanoseconds: Double) -> Int {
        let probe = 200_000
        var samples: [Double] = []
        for attempt in 0..<7 {
            let (ns, value) = BenchClock.measure { run(seed: UInt64(attempt), rounds: probe) }
            blackHole(value)
            samples.append(Double(ns) / Double(probe))
        }
        let perRound = max(Statistics.median(samples), 0.01)
        return max(1, Int((targetNanoseconds / perRound).rounded()))
    }
}

/// Keeps a value alive as far as the optimizer can tell, so the work producing it stays.
@_optimize(none)
public func blackHole<T>(_ value: T) {}
