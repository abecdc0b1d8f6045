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

// Listing 3-4, "Executing a completion callback after a task":
//
//     void average_async(int *data, size_t len, dispatch_queue_t queue, void (^block)(int)) {
//        dispatch_retain(queue);
//        dispatch_async(dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0), ^{
//           int avg = average(data, len);
//           dispatch_async(queue, ^{ block(avg);});
//           dispatch_release(queue);
//        });
//     }
//
// "The last two parameters to the averaging function allow the caller to specify a queue
// and block to use when reporting the results."

/// The average of `data` (zero for no values).
func average(_ data: [Int]) -> Int {
    data.isEmpty ? 0 : data.reduce(0, +) / data.count
}

/// Computes the average of `data` on the default global queue, then calls `block` with
/// it on `queue` (the chapter's `average_async`). In Swift the closures capture `queue`
/// strongly, which is what the chapter's `dispatch_retain` / `dispatch_release` pair does.
public func averageAsync(_ data: [Int], queue: DispatchQueue, block: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.global(qos: .default).async {
        let avg = average(data)
        queue.async { block(avg) }
    }
}

/// Listing 3-4: calls `averageAsync` with a serial "results" queue and a completion
/// block, and shows the block ran on that queue with the right value.
public func completionBlock(_ transcript: Transcript) {
    transcript.say("Listing 3-4: a completion block after a task")
    let data = [3, 1, 4, 1, 5, 9, 2, 6]
    let resultsQueue = DispatchQueue(label: "com.example.results")
    let nameKey = DispatchSpecificKey<String>()
    resultsQueue.setSpecific(key: nameKey, value: resultsQueue.label)
    let delivered = DispatchSemaphore(value: 0)
    let received = QueueConfined<Int?>(nil)   // written on resultsQueue, read after `delivered`

    averageAsync(data, queue: resultsQueue) { avg in
        received.value = avg
        let here = DispatchQueue.getSpecific(key: nameKey) ?? "another queue"
        transcript.say("  completion block: average = \(avg), running on '\(here)'")
        delivered.signal()
    }
    transcript.say("  averageAsync returned; the average is computed in the background")

    let result = delivered.wait(timeout: listingDeadline())
    transcript.check(result == .success, "the completion block was called")
    let avg = resultsQueue.sync { received.value }
    transcript.check(avg == average(data), "it received the average of \(data), \(average(data))")
    transcript.check(resultsQueue.sync { DispatchQueue.getSpecific(key: nameKey) } == resultsQueue.label,
                     "tasks on the results queue see its name (the block's \"running on\" above)")
}
