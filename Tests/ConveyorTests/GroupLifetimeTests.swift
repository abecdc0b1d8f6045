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

@Suite struct GroupLifetimeTests {
    /// A group whose only owners are the tasks in it lives until the last one leaves, and
    /// is freed after.
    @Test func aNonEmptyGroupKeepsItselfAlive() {
        weak var weakGroup: DispatchGroup?
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        do {
            let group = DispatchGroup()
            weakGroup = group
            DispatchQueue.global().async(group: group) { _ = gate.wait(timeout: deadline()) }
            group.notify(queue: .global()) { finished.signal() }
        }
        #expect(weakGroup != nil)
        gate.signal()
        #expect(finished.wait(timeout: deadline()) == .success)
        #expect(waitUntil { weakGroup == nil })
    }
}
