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
import ConveyorListings
#if canImport(Glibc)
import Glibc
#endif

// "Performing Tasks on the Main Thread":
//
// "If you are not creating a Cocoa application and do not want to set up a run loop
// explicitly, you must call the dispatch_main function to drain the main dispatch queue
// explicitly. You can still add tasks to the queue, but if you do not call this function
// those tasks are never executed."

/// Runs every listing on the main thread, then ends the program the way a command-line
/// GCD program does: a background task reports to the main queue, whose last task calls
/// `exit`, while the main thread serves the main queue in `dispatchMain()`.
/// - Parameter mainThread: The main thread, to show where the main queue's task ran.
nonisolated func runListingsThenServeMainQueue(mainThread: pthread_t) -> Never {
    let transcript = Transcript()
    for listing in allListings {
        listing.run(transcript)
        transcript.say("")
    }

    transcript.say("Performing tasks on the main thread: main queue + dispatchMain()")
    let failures = transcript.failures.count
    DispatchQueue.global().async {
        transcript.say("  a background task hands the last step to the main queue")
        DispatchQueue.main.async {
            dispatchPrecondition(condition: .onQueue(.main))
            let onMainThread = pthread_equal(pthread_self(), mainThread) != 0
            transcript.check(onMainThread, "the main queue's task runs on the main thread")
            let total = failures + (onMainThread ? 0 : 1)
            transcript.say(total == 0 ? "All listings behaved as the chapter says." : "\(total) check(s) FAILED.")
            exit(total == 0 ? 0 : 1)
        }
    }
    transcript.say("  main thread: calling dispatchMain(), which never returns")
    dispatchMain()
}
