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
@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 24: a waiter spins before it sleeps only while its thread has not lately been
/// preempted (`cnv_spin_advised`). In a child process: it makes the machine busy.
@Suite struct SpinAdviceTests {
    /// With more threads burning CPU than there are CPUs, a thread that runs for a while is
    /// preempted, and the advice that follows (within one sampling period) is not to spin.
    @Test func aPreemptedThreadIsAdvisedNotToSpin() async {
        await #expect(processExitsWith: .success) {
            exit(SpinAdviceScenario.aPreemptedThreadIsAdvisedNotToSpin() ? 0 : 1)
        }
    }
}

enum SpinAdviceScenario {
    static func aPreemptedThreadIsAdvisedNotToSpin() -> Bool {
        for _ in 0..<64 { _ = cnv_spin_advised() }   // the first sample
        let stop = Atomic<Bool>(false)
        for _ in 0..<(2 * ThreadInfo.cpuCount) {
            startThread { while !stop.load(ordering: .relaxed) { cnv_cpu_relax() } }
        }
        defer { stop.store(true, ordering: .relaxed) }
        // Four sampling periods (64 calls each) in a row, each after this thread was
        // preempted, advise against spinning.
        var advisedAgainst = false
        for period in 0..<4 {
            guard runUntilPreempted() else {
                print("this thread was never preempted (period \(period))")
                return false
            }
            for _ in 0..<64 where !cnv_spin_advised() { advisedAgainst = true }
        }
        if !advisedAgainst { print("a preempted thread was still advised to spin") }
        return advisedAgainst
    }

    /// Runs (never sleeps) until the kernel has preempted this thread: its involuntary
    /// switches grow. Bounded by a deadline; with more burning threads than CPUs a few
    /// milliseconds are plenty.
    private static func runUntilPreempted() -> Bool {
        let before = cnv_thread_involuntary_switches()
        let deadline = DispatchTime.now() + .seconds(20)
        while DispatchTime.now() < deadline {
            computeFor(milliseconds: 5)
            if cnv_thread_involuntary_switches() != before { return before >= 0 }
        }
        return false
    }
}
