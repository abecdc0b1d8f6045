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

import Testing
@testable import ConveyorCore

@Suite struct PlatformTests {
    @Test func cpuCountComesFromTheAffinityMask() {
        #expect(ThreadInfo.cpuCount >= 1)
    }

    @Test func monotonicClockAdvances() {
        let a = Clock.monotonicNanoseconds()
        var b = a
        while b == a { b = Clock.monotonicNanoseconds() }
        #expect(b > a)
    }

    @Test func futexWaitReturnsAtOnceWhenTheWordDiffers() {
        let word = FutexWord(1)
        defer { word.deallocate() }
        #expect(word.wait(expected: 0, timeoutNanoseconds: 5_000_000_000))
    }

    @Test func futexWaitTimesOut() {
        let word = FutexWord(0)
        defer { word.deallocate() }
        #expect(!word.wait(expected: 0, timeoutNanoseconds: 1_000_000))
    }
}
