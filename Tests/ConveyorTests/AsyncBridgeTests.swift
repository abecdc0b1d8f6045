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
import Testing

@Suite struct AsyncBridgeTests {
    @Test func awaitingAGroupReturnsWhenItEmpties() async throws {
        let group = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) { gate.wait() }
        }
        async let waited: Void = group.waitUntilEmpty()
        for _ in 0..<8 { gate.signal() }
        try await waited
        #expect(group.wait(timeout: .now()) == .success)
    }

    @Test func awaitingAnEmptyGroupReturnsAtOnce() async throws {
        try await DispatchGroup().waitUntilEmpty()
    }

    @Test func cancellingAGroupWaitThrows() async {
        let group = DispatchGroup()
        group.enter()
        let waiter = Task { try await group.waitUntilEmpty() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        group.leave()
    }

    @Test func awaitingAWorkItem() async throws {
        let gate = DispatchSemaphore(value: 0)
        let item = DispatchWorkItem { gate.wait() }
        DispatchQueue.global().async(execute: item)
        let waiter = Task { try await item.waitUntilFinished() }
        gate.signal()
        try await waiter.value
        #expect(item.wait(timeout: .now()) == .success)
    }

    @Test func cancellingAWorkItemWaitThrows() async {
        let item = DispatchWorkItem {}
        let waiter = Task { try await item.waitUntilFinished() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test func aSourcesEventsArriveAsASequence() async {
        let source = DispatchSource.makeUserDataAddSource(queue: DispatchQueue(label: "bridge.source"))
        let events = source.events()
        source.activate()
        source.add(data: 3)
        var received: UInt = 0
        for await value in events {
            received += value
            if received == 3 { source.cancel() }
        }
        #expect(received == 3)
        #expect(source.isCancelled)
    }

    @Test func cancellingTheConsumingTaskCancelsTheSource() async {
        let source = DispatchSource.makeUserDataOrSource(queue: DispatchQueue(label: "bridge.source-cancel"))
        let events = source.events()
        source.activate()
        let consumer = Task { for await _ in events {} }
        consumer.cancel()
        await consumer.value
        #expect(waitUntil { source.isCancelled })
    }
}
