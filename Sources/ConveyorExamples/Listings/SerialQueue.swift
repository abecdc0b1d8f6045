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
import Synchronization

// Listing 3-2, "Creating a new serial queue":
//
//     dispatch_queue_t queue;
//     queue = dispatch_queue_create("com.example.MyQueue", NULL);
//
// "A serial queue executes only one task at a time and always pulls tasks from the head
// of the queue. You might use a serial queue instead of a lock to protect a shared
// resource or mutable data structure."

/// Listing 3-2: creates a serial queue, submits tasks to it asynchronously, and shows
/// that they ran one at a time, in the order they were added, while guarding an array
/// that no lock protects.
public func creatingASerialQueue(_ transcript: Transcript) {
    transcript.say("Listing 3-2: creating a serial queue")
    let queue = DispatchQueue(label: "com.example.MyQueue")
    transcript.say("  created '\(queue.label)'")

    let taskCount = 8
    let order = QueueConfined<[Int]>([])   // guarded by `queue`, not by a lock
    let running = Atomic<Int>(0)
    let mostAtOnce = Atomic<Int>(0)
    for task in 0..<taskCount {
        queue.async {
            let now = running.add(1, ordering: .relaxed).newValue
            mostAtOnce.max(now, ordering: .relaxed)
            order.value.append(task)
            running.subtract(1, ordering: .relaxed)
        }
    }
    // A `sync` runs after everything submitted before it, so it sees every append.
    let seen = queue.sync { order.value }

    transcript.say("  tasks ran in this order: \(seen.map(String.init).joined(separator: " "))")
    transcript.check(seen == Array(0..<taskCount), "tasks started first in, first out")
    transcript.check(mostAtOnce.load(ordering: .relaxed) == 1, "at most one task ran at a time")
}
