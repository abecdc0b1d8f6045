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

/// Misuse of sources traps with a message; each runs in a child process.
@Suite struct SourcesTrapTests {
    /// The child's stderr as text.
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func releasingAnInactiveSourceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DispatchSource.makeUserDataAddSource()
        }
        #expect(Self.message(result).contains("release of an inactive dispatch source (user-data add)"))
    }

    @Test func releasingASuspendedSourceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let source = DispatchSource.makeTimerSource()
            source.activate()
            source.suspend()
        }
        #expect(Self.message(result).contains("release of a suspended dispatch source (timer)"))
    }

    @Test func overResumeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let source = DispatchSource.makeUserDataOrSource()
            source.activate()
            source.resume()
        }
        #expect(Self.message(result).contains("over-resume of a dispatch source (user-data or)"))
    }

    /// libdispatch's `dispatch_source_merge_data` traps on a source that is not a user-data
    /// source ("Invalid source type"); so does Conveyor.
    @Test func mergingIntoATimerSourceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let source = DispatchSource.makeTimerSource() as! DispatchSource
            source.add(data: 1)
        }
        #expect(Self.message(result).contains("add(data:) on a timer dispatch source"))
    }

    @Test func schedulingANonTimerTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let source = DispatchSource.makeUserDataAddSource() as! DispatchSource
            source.schedule(deadline: .now())
        }
        #expect(Self.message(result).contains("schedule(…) on a user-data add dispatch source"))
    }

    @Test func aSignalSourceNeedsASignalNumber() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DispatchSource.makeSignalSource(signal: 0)
        }
        #expect(Self.message(result).contains("not a signal number"))
    }
}
