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

import Conveyor

// Listing 3-6, "Waiting on asynchronous tasks":
//
//     dispatch_group_t group = dispatch_group_create();
//     dispatch_group_async(group, queue, ^{ /* Some asynchronous work */ });
//     // Do some other work while the tasks execute.
//     dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
//
// "after dispatching several tasks to compute some data, you might use a group to wait
// on those tasks and then process the results when they are done."

/// The sum of the integers in `range`, the work one task of the listing does.
func sum(of range: Range<Int>) -> Int {
    range.reduce(0, +)
}

/// Listing 3-6: four tasks on a global queue each sum a quarter of 0..<1_000_000 into
/// their own slot; the caller does other work, waits on the group, then adds the parts.
public func waitingOnAGroup(_ transcript: Transcript) {
    transcript.say("Listing 3-6: waiting on a group of queued tasks")
    let queue = DispatchQueue.global(qos: .default)
    let group = DispatchGroup()
    let total = 1_000_000
    let parts = 4
    let partialSums = QueueConfined<[Int]>(Array(repeating: 0, count: parts))
    let slotsGuard = DispatchQueue(label: "com.example.partial-sums")   // guards partialSums

    for part in 0..<parts {
        queue.async(group: group) {
            let chunk = total / parts
            let value = sum(of: part * chunk..<(part + 1) * chunk)
            slotsGuard.sync { partialSums.value[part] = value }
        }
    }

    transcript.say("  doing some other work while the \(parts) tasks execute")
    let result = group.wait(timeout: listingDeadline())
    transcript.say("  group.wait returned: \(result == .success ? "every task finished" : "timed out")")

    let values = slotsGuard.sync { partialSums.value }
    let grandTotal = values.reduce(0, +)
    transcript.say("  partial sums: \(values.map(String.init).joined(separator: " + ")) = \(grandTotal)")
    transcript.check(result == .success, "the group emptied")
    transcript.check(grandTotal == total * (total - 1) / 2, "the parts add up to 0 + 1 + ... + \(total - 1)")
}
