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

/// Changes to an active source that libdispatch allows (it logs them as deprecated), and
/// what its handlers read. A fresh-eyes review found Conveyor trapping on the first two,
/// and a stale `data` in the cancel handler; each test fails on that behaviour.
@Suite struct SourcesLateChangeTests {
    /// A registration handler set after activation runs once, before the next event.
    @Test func aRegistrationHandlerSetAfterActivationRunsOnceBeforeTheNextEvent() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "late-registration"))
        let log = TestLog<String>()
        let events = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append("event \(source.data)")
            events.signal()
        }
        source.activate()
        source.setRegistrationHandler { log.append("registration") }
        source.add(data: 3)
        #expect(events.wait(timeout: deadline()) == .success)
        source.add(data: 4)
        #expect(events.wait(timeout: deadline()) == .success)
        #expect(log.values == ["registration", "event 3", "event 4"])
        source.cancel()
    }

    /// On a cancelled source a late registration handler never runs (libdispatch skips
    /// the registration callout of a cancelled source).
    @Test func aRegistrationHandlerSetAfterCancelNeverRuns() {
        let queue = DispatchQueue(label: "late-registration-cancelled")
        let source = DispatchSource.makeUserDataAddSource(queue: queue)
        let log = TestLog<String>()
        let cancelled = DispatchSemaphore(value: 0)
        source.setCancelHandler {
            log.append("cancel")
            cancelled.signal()
        }
        source.activate()
        queue.sync {
            // While the queue is held the cancel handler cannot have run yet.
            source.cancel()
            source.setRegistrationHandler { log.append("registration") }
        }
        #expect(cancelled.wait(timeout: deadline()) == .success)
        queue.sync {}
        #expect(log.values == ["cancel"])
    }

    /// `setTarget` on an active source: the next handler runs on the new queue.
    @Test func anActiveSourceRetargetedRunsItsNextHandlerOnTheNewQueue() {
        let first = DispatchQueue(label: "retarget-first")
        let second = DispatchQueue(label: "retarget-second")
        let key = DispatchSpecificKey<String>()
        first.setSpecific(key: key, value: "first")
        second.setSpecific(key: key, value: "second")
        let source = DispatchSource.makeUserDataAddSource(queue: first) as! DispatchSource
        let log = TestLog<String>()
        let events = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append("\(source.data) on \(DispatchQueue.getSpecific(key: key) ?? "neither")")
            events.signal()
        }
        source.activate()
        source.add(data: 1)
        #expect(events.wait(timeout: deadline()) == .success)
        source.setTarget(queue: second)
        source.add(data: 2)
        #expect(events.wait(timeout: deadline()) == .success)
        #expect(log.values == ["1 on first", "2 on second"])
        source.cancel()
    }

    /// `data` reads 0 in the cancel handler, as libdispatch's does, not the last event's.
    @Test func theCancelHandlerReadsZeroData() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "cancel-data"))
        let log = TestLog<String>()
        let done = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append("event \(source.data)")
            done.signal()
        }
        source.setCancelHandler {
            log.append("cancel \(source.data)")
            done.signal()
        }
        source.activate()
        source.add(data: 7)
        #expect(done.wait(timeout: deadline()) == .success)
        source.cancel()
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(log.values == ["event 7", "cancel 0"])
    }
}
