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

import ConveyorListings
import Testing

/// Runs each of the chapter's listings (the code behind `conveyor-examples`) quietly and
/// expects every claim it checks to hold.
@Suite struct ExamplesTests {
    /// One listing, run quietly: every "ok"/"FAILED" claim it makes must hold.
    @Test(arguments: allListings.map(\.name))
    func listingBehavesAsTheChapterSays(name: String) throws {
        let listing = try #require(allListings.first { $0.name == name })
        let transcript = Transcript(echo: false)
        listing.run(transcript)
        #expect(transcript.failures.isEmpty, "\(name): \(transcript.failures) in \(transcript.lines)")
        #expect(transcript.lines.contains { $0.hasPrefix("  ok: ") })
    }
}
