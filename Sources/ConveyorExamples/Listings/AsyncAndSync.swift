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

// "Adding a Single Task to a Queue", the block-based example:
//
//     dispatch_async(myCustomQueue, ^{ printf("Do some work here.\n"); });
//     printf("The first block may or may not have run.\n");
//     dispatch_sync(myCustomQueue, ^{ printf("Do some more work here.\n"); });
//     printf("Both blocks have completed.\n");
//
// "These functions [dispatch_sync] block the current thread of execution until the
// specified task finishes executing."

/// The `dispatch_async` / `dispatch_sync` example: an asynchronous task, then a
/// synchronous one on the same serial queue. The second line may come before or after
/// the first task's line; the last two always come in this order, after both tasks.
public func asyncThenSync(_ transcript: Transcript) {
    transcript.say("Adding a single task: async, then sync")
    let myCustomQueue = DispatchQueue(label: "com.example.MyCustomQueue")

    myCustomQueue.async {
        transcript.say("  Do some work here.")
    }
    transcript.say("  The first block may or may not have run.")

    myCustomQueue.sync {
        transcript.say("  Do some more work here.")
    }
    transcript.say("  Both blocks have completed.")

    let lines = transcript.lines
    let first = lines.lastIndex(of: "  Do some work here.")
    let second = lines.lastIndex(of: "  Do some more work here.")
    let last = lines.lastIndex(of: "  Both blocks have completed.")
    transcript.check(first != nil && second != nil && first! < second!,
                     "the async task ran before the sync task (one serial queue, FIFO)")
    transcript.check(second != nil && last != nil && second! < last!, "sync returned only after its task ran")
}
