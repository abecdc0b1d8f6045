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

/// Checks that a stream of numbered tasks arrived complete and in order (FIFO), as a serial
/// queue promises. Kept in state the queue itself protects (`Guarded`).
public struct SequenceCheck: Sendable {
    /// The index the next task should carry; after the last task, how many tasks ran.
    public var next = 0
    /// Tasks that ran with another index than expected.
    public var outOfOrder = 0

    public init() {}

    /// Records that the task numbered `index` is running now.
    @inlinable
    public mutating func record(_ index: Int) {
        if index != next { outOfOrder += 1 }
        next += 1
    }

    /// Throws unless exactly `expected` tasks ran, all in order.
    public func verify(expected: Int, _ what: String) throws {
        try check(
            next == expected && outOfOrder == 0,
            "\(what): \(next) of \(expected) tasks ran, \(outOfOrder) out of order")
    }
}
