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

/// One of the chapter's listings: a name for tests and a function that runs it.
public struct Listing: Sendable {
    /// A short name, such as "Listing 3-2".
    public let name: String
    /// Runs the listing, writing what it shows to the transcript.
    public let run: @Sendable (Transcript) -> Void
}

/// The chapter's listings in the order the chapter gives them (the main-queue pattern,
/// which needs `dispatchMain()`, lives in the executable).
public let allListings: [Listing] = [
    Listing(name: "Listing 3-2, creating a serial queue", run: creatingASerialQueue),
    Listing(name: "Listing 3-3, queue context with clean-up", run: queueContextWithCleanUp),
    Listing(name: "async then sync", run: asyncThenSync),
    Listing(name: "Listing 3-4, completion block", run: completionBlock),
    Listing(name: "Listing 3-5, concurrentPerform", run: concurrentLoop),
    Listing(name: "semaphore guarding file descriptors", run: semaphoreGuardsFileDescriptors),
    Listing(name: "Listing 3-6, waiting on a group", run: waitingOnAGroup),
]
