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
import Synchronization
import Testing

@Suite struct SourcesUserDataTests {
    @Test func thousandAddsSumExactly() {
        // `as! DispatchSource`: the protocols are not Sendable (as in Dispatch); the class is.
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "add", attributes: .concurrent)) as! DispatchSource
        let total = Atomic<UInt>(0)
        let calls = Counter()
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let expected: UInt = (1...1000).reduce(0, +)
        source.setEventHandler {
            if running.add(1, ordering: .relaxed).newValue != 1 { overlapped.store(true, ordering: .relaxed) }
            calls.increment()
            let sum = total.add(source.data, ordering: .relaxed).newValue
            running.subtract(1, ordering: .relaxed)
            if sum == expected { done.signal() }
        }
        source.activate()
        DispatchQueue.concurrentPerform(iterations: 1000) { index in
            source.add(data: UInt(index + 1))
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(total.load(ordering: .relaxed) == expected)
        #expect(calls.current <= 1000)
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap)
        source.cancel()
    }

    @Test func addOfZeroSubmitsNothingAndDataBeforeActivationIsKept() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "zero"))
        let log = TestLog<UInt>()
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append(source.data)
            fired.signal()
        }
        source.add(data: 3)
        source.resume()
        #expect(fired.wait(timeout: deadline()) == .success)
        source.add(data: 0)
        #expect(fired.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(log.values == [3])
        #expect(source.data == 3)   // outside the handler: the last delivery
        source.cancel()
    }

    /// The data of the events `source` delivers after `merges` ran while it was suspended
    /// (activated first, cancelled after the first event).
    static func eventsAfterMergingWhileSuspended(_ source: DispatchSource, _ merges: (DispatchSource) -> Void) -> [UInt] {
        let log = TestLog<UInt>()
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append(source.data)
            fired.signal()
        }
        source.activate()
        source.suspend()
        merges(source)
        source.resume()
        #expect(fired.wait(timeout: deadline()) == .success)
        source.cancel()
        return log.values
    }

    @Test func orMergesBitsWhileSuspended() {
        let source = DispatchSource.makeUserDataOrSource(queue: DispatchQueue(label: "or")) as! DispatchSource
        let values = Self.eventsAfterMergingWhileSuspended(source) {
            $0.or(data: 0b0001)
            $0.or(data: 0b0100)
            $0.or(data: 0b0101)
            $0.or(data: 0)
        }
        #expect(values == [0b0101])
    }

    /// Every user-data source merges by its own rule whichever merge call is made, as
    /// libdispatch's (each of its three calls is `dispatch_source_merge_data`): `add(data:)`
    /// on an or source ORs, `or(data:)` on a replace source replaces, `replace(data:)` on
    /// an add source adds. Conveyor trapped there once; libdispatch does not.
    @Test func eachMergeCallUsesTheSourcesOwnRule() {
        let merged = Self.eventsAfterMergingWhileSuspended
        let queue = DispatchQueue(label: "merge rules")
        let or = DispatchSource.makeUserDataOrSource(queue: queue) as! DispatchSource
        #expect(merged(or) { $0.add(data: 0b0110); $0.add(data: 0b0011) } == [0b0111])
        let replace = DispatchSource.makeUserDataReplaceSource(queue: queue) as! DispatchSource
        #expect(merged(replace) { $0.or(data: 0b0110); $0.or(data: 0b0001) } == [0b0001])
        let add = DispatchSource.makeUserDataAddSource(queue: queue) as! DispatchSource
        #expect(merged(add) { $0.replace(data: 5); $0.replace(data: 6) } == [11])
    }

    /// A source's registration, the event pending then and a cancellation run in one pass,
    /// before blocks submitted to the (serial) target meanwhile; data merged during the event
    /// handler comes after them. libdispatch's order (`Tester/Semantics`); Conveyor queued
    /// its delivery again after every handler, so a cancel handler ran after a `sync` that
    /// followed `cancel()`.
    @Test func aSourcesHandlersRunInOnePassBeforeBlocksSubmittedMeanwhile() {
        let queue = DispatchQueue(label: "one pass")
        for _ in 0..<100 {
            let log = TestLog<String>()
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            source.setRegistrationHandler { queue.async { log.append("block after registration") } }
            let events = Counter()
            source.setEventHandler {
                log.append("event \(source.data)")
                queue.async { log.append("block after event") }
                if events.increment() == 1 { source.add(data: 5) } else { source.cancel() }
            }
            source.setCancelHandler { log.append("cancel") }
            source.add(data: 1)
            source.activate()
            queue.sync {}
            queue.sync {}
            queue.sync {}
            #expect(log.values == ["event 1", "block after registration", "block after event", "event 5", "cancel",
                                   "block after event"])
        }
    }

    /// Handlers with a QoS of their own, on queues of other QoS, set before activation and
    /// from the registration handler: every event is delivered (a first version of the
    /// one-pass delivery compared the wanted band with the job's, which the queue had
    /// rewritten, and queued itself again for ever).
    @Test func handlersWithTheirOwnQoSAreDeliveredOnQueuesOfAnother() {
        let queues: [DispatchQueue] = [DispatchQoS.utility, .userInitiated, .unspecified].flatMap { qos in
            [DispatchQueue(label: "serial", qos: qos),
             DispatchQueue(label: "concurrent", qos: qos, attributes: .concurrent),
             DispatchQueue(label: "concurrent on background", qos: qos, attributes: .concurrent, target: .global(qos: .background)),
             DispatchQueue(label: "serial on user-initiated", qos: qos, target: .global(qos: .userInitiated))]
        } + [.global(qos: .utility), .global()] + [DispatchQueue.Attributes.concurrent, []].map { kind in
            // Given its global target while inactive: the queue's items run at that
            // target's band, not the band the queue was made with.
            let queue = DispatchQueue(label: "retargeted while inactive", attributes: kind.union(.initiallyInactive))
            queue.setTarget(queue: .global(qos: .background))
            queue.activate()
            return queue
        }
        for queue in queues {
            for handlerQoS in [DispatchQoS.background, .userInteractive, .unspecified] {
                let queueQoS = "\(queue.label) \(queue.qos.qosClass)"
                let fired = DispatchSemaphore(value: 0)
                let source = DispatchSource.makeUserDataAddSource(queue: queue)
                source.setEventHandler(qos: handlerQoS, flags: .enforceQoS) { fired.signal() }
                source.activate()
                source.add(data: 1)
                #expect(fired.wait(timeout: deadline()) == .success, "queue \(queueQoS), handler \(handlerQoS)")
                let replaced = DispatchSource.makeUserDataAddSource(queue: queue)
                replaced.setRegistrationHandler {
                    replaced.setEventHandler(qos: handlerQoS, flags: .enforceQoS) { fired.signal() }
                }
                replaced.add(data: 1)
                replaced.activate()
                #expect(fired.wait(timeout: deadline()) == .success, "replaced: queue \(queueQoS), handler \(handlerQoS)")
                source.cancel()
                replaced.cancel()
            }
        }
    }

    @Test func replaceKeepsTheLatestAndZeroDropsThePendingValue() {
        let queue = DispatchQueue(label: "replace")
        let source = DispatchSource.makeUserDataReplaceSource(queue: queue)
        let log = TestLog<UInt>()
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append(source.data)
            fired.signal()
        }
        source.activate()
        source.suspend()
        source.replace(data: 7)
        source.replace(data: 9)
        source.resume()
        #expect(fired.wait(timeout: deadline()) == .success)
        source.suspend()
        source.replace(data: 5)
        source.replace(data: 0)
        source.resume()
        #expect(fired.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(log.values == [9])
        source.cancel()
    }

    @Test func registrationFirstThenEventsThenCancelOnceAfterTheLastEvent() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "order", attributes: .concurrent)) as! DispatchSource
        let log = TestLog<String>()
        let cancelled = DispatchSemaphore(value: 0)
        let inHandler = Atomic<Bool>(false)
        let cancelDuringHandler = Atomic<Bool>(false)
        let registered = DispatchSemaphore(value: 0)
        source.setRegistrationHandler {
            log.append("registration")
            registered.signal()
        }
        source.setEventHandler {
            inHandler.store(true, ordering: .sequentiallyConsistent)
            log.append("event")
            inHandler.store(false, ordering: .sequentiallyConsistent)
        }
        source.setCancelHandler {
            if inHandler.load(ordering: .sequentiallyConsistent) { cancelDuringHandler.store(true, ordering: .relaxed) }
            log.append("cancel")
            cancelled.signal()
        }
        source.add(data: 1)
        source.activate()
        // A cancel before the registration handler ran would skip it (as in libdispatch).
        #expect(registered.wait(timeout: deadline()) == .success)
        let adders = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: adders) {
                for _ in 0..<2000 { source.add(data: 1) }
            }
        }
        DispatchQueue.global().async { source.cancel() }
        #expect(adders.wait(timeout: deadline()) == .success)
        #expect(cancelled.wait(timeout: deadline()) == .success)
        source.cancel()   // a second cancel does nothing
        #expect(cancelled.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        let values = log.values
        #expect(values.first == "registration")
        #expect(values.last == "cancel")
        #expect(values.filter { $0 == "cancel" }.count == 1)
        let cancelledDuringHandler = cancelDuringHandler.load(ordering: .relaxed)
        #expect(!cancelledDuringHandler)
        #expect(source.isCancelled)
    }

    @Test func cancelWhileInactiveRunsTheCancelHandlerOnActivationOnly() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "inactive"))
        let log = TestLog<String>()
        let cancelled = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { log.append("registration") }
        source.setEventHandler { log.append("event") }
        source.setCancelHandler {
            log.append("cancel")
            cancelled.signal()
        }
        source.add(data: 2)
        source.cancel()
        #expect(source.isCancelled)
        #expect(cancelled.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        source.activate()
        #expect(cancelled.wait(timeout: deadline()) == .success)
        #expect(log.values == ["cancel"])
    }

    @Test func cancelBeforeTheRegistrationHandlerRanSkipsIt() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "skip"))
        let log = TestLog<String>()
        let cancelled = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { log.append("registration") }
        source.setCancelHandler {
            log.append("cancel")
            cancelled.signal()
        }
        source.suspend()
        source.activate()   // active but suspended: the registration handler waits
        source.cancel()
        source.resume()
        #expect(cancelled.wait(timeout: deadline()) == .success)
        #expect(log.values == ["cancel"])
    }

    @Test func cancelWhileSuspendedWaitsForResume() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "suspended"))
        let cancelled = DispatchSemaphore(value: 0)
        let events = Counter()
        source.setEventHandler { events.increment() }
        source.setCancelHandler { cancelled.signal() }
        source.activate()
        source.suspend()
        source.add(data: 1)
        source.cancel()
        #expect(cancelled.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        source.resume()
        #expect(cancelled.wait(timeout: deadline()) == .success)
        #expect(events.current == 0)   // events pending at cancel are dropped
    }

    @Test func suspendOfAnInactiveSourceNeedsItsResumeBeforeResumeActivates() {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "nested"))
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler { fired.signal() }
        source.suspend()
        source.add(data: 1)
        source.resume()
        #expect(fired.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        source.resume()
        #expect(fired.wait(timeout: deadline()) == .success)
        source.cancel()
    }

    @Test func eventHandlerCanChangeAfterActivationAndHandlersRunOnTheTarget() {
        let queue = DispatchQueue(label: "target")
        let source = DispatchSource.makeUserDataAddSource() as! DispatchSource
        source.setTarget(queue: queue)
        let log = TestLog<String>()
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            log.append("first")
            fired.signal()
        }
        source.activate()
        source.add(data: 1)
        #expect(fired.wait(timeout: deadline()) == .success)
        source.setEventHandler {
            dispatchPrecondition(condition: .onQueue(queue))
            log.append("second")
            fired.signal()
        }
        source.add(data: 1)
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(log.values == ["first", "second"])
        let item = DispatchWorkItem { fired.signal() }
        source.setEventHandler(handler: item)
        source.add(data: 1)
        #expect(fired.wait(timeout: deadline()) == .success)
        source.cancel()
    }

    @Test func handlersAreReleasedAfterTheCancelHandler() {
        final class Token: Sendable {}
        weak var weakToken: Token?
        let cancelled = DispatchSemaphore(value: 0)
        do {
            let token = Token()
            weakToken = token
            let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "release"))
            // A handler that captures its own source: the cycle libdispatch breaks on cancel.
            source.setEventHandler { withExtendedLifetime((token, source)) {} }
            source.setCancelHandler { cancelled.signal() }
            source.activate()
            source.cancel()
        }
        #expect(cancelled.wait(timeout: deadline()) == .success)
        #expect(waitUntil { weakToken == nil })
    }

    @Test func releasingAnActiveSourceStopsItWithoutTheCancelHandler() {
        let cancelled = DispatchSemaphore(value: 0)
        let ticks = Counter()
        do {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "released"))
            timer.setEventHandler { ticks.increment() }
            timer.setCancelHandler { cancelled.signal() }
            timer.schedule(deadline: .now(), repeating: .milliseconds(5))
            timer.activate()
            #expect(waitUntil { ticks.current >= 2 })
        }
        #expect(cancelled.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        let after = ticks.current
        #expect(cancelled.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(ticks.current <= after + 1)
    }
}
