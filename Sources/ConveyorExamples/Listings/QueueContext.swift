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

// Listing 3-3, "Installing a queue clean up function":
//
//     void myFinalizerFunction(void *context) { ...; free(theData); }
//     dispatch_queue_t createMyQueue() {
//         MyDataContext* data = (MyDataContext*) malloc(sizeof(MyDataContext));
//         ...
//         dispatch_set_context(serialQueue, data);
//         dispatch_set_finalizer_f(serialQueue, &myFinalizerFunction);
//         return serialQueue;
//     }
//
// "Dispatch queues are reference counted objects and you can use the
// dispatch_set_finalizer_f function to specify a function to be executed when the
// reference count of your queue reaches zero."
//
// Swift has no `dispatch_set_context`; the Swift spelling is `setSpecific(key:value:)`
// with a class value. The queue holds the value until it is freed, so the value's
// `deinit` is the finalizer.

/// The data a queue carries as its context (the chapter's `MyDataContext`). Its
/// `deinit` is the clean-up function: it runs when the queue that holds it is freed.
final class MyDataContext: Sendable {
    /// What the context describes; read by tasks on the queue.
    let purpose: String
    private let transcript: Transcript
    private let cleanedUp: DispatchSemaphore

    /// Initializes the context (the chapter's `myInitializeDataContextFunction`).
    init(purpose: String, transcript: Transcript, cleanedUp: DispatchSemaphore) {
        self.purpose = purpose
        self.transcript = transcript
        self.cleanedUp = cleanedUp
    }

    /// The finalizer (the chapter's `myFinalizerFunction`).
    deinit {
        transcript.say("  finalizer: cleaning up the context '\(purpose)'")
        cleanedUp.signal()
    }
}

/// Creates a serial queue carrying a `MyDataContext` (the chapter's `createMyQueue`).
func createMyQueue(
    key: DispatchSpecificKey<MyDataContext>, transcript: Transcript, cleanedUp: DispatchSemaphore
) -> DispatchQueue {
    let data = MyDataContext(purpose: "critical tasks", transcript: transcript, cleanedUp: cleanedUp)
    let serialQueue = DispatchQueue(label: "com.example.CriticalTaskQueue")
    serialQueue.setSpecific(key: key, value: data)
    return serialQueue
}

/// Listing 3-3: a queue with context data and a clean-up function. A task on the queue
/// reads the context; when the last reference to the queue goes, the context's
/// finalizer runs (the chapter: "the system asynchronously deallocates the queue", so
/// the listing waits for it).
public func queueContextWithCleanUp(_ transcript: Transcript) {
    transcript.say("Listing 3-3: queue context with a clean-up function")
    let key = DispatchSpecificKey<MyDataContext>()
    let cleanedUp = DispatchSemaphore(value: 0)
    do {
        let queue = createMyQueue(key: key, transcript: transcript, cleanedUp: cleanedUp)
        queue.async {
            transcript.say("  an async task sees its queue's context: \(DispatchQueue.getSpecific(key: key)?.purpose ?? "nil")")
        }
        let seenFromTask = queue.sync { DispatchQueue.getSpecific(key: key)?.purpose }
        transcript.check(seenFromTask == "critical tasks", "a sync task found the queue's context")
        transcript.check(DispatchQueue.getSpecific(key: key) == nil, "code off the queue sees no context")
        withExtendedLifetime(queue) {
            transcript.say("  releasing the last reference to '\(queue.label)'")
        }
    }
    let result = cleanedUp.wait(timeout: listingDeadline())
    transcript.check(result == .success, "the finalizer ran once the queue was freed")
}
