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

import Foundation
import XCTest
import Conveyor

/// Conveyor's names win in a file that imports Foundation and XCTest too (both re-export
/// the toolchain's Dispatch). The generated file beside this one names every declaration;
/// this case runs it, and checks a few resolutions by their behaviour.
final class DeclarationTests: XCTestCase {
    func testEveryDeclarationResolvesToConveyor() {
        useEveryDeclaration()
    }

    func testTypesComeFromConveyor() {
        XCTAssertTrue(String(reflecting: DispatchQueue.self).hasPrefix("ConveyorCore."))
        XCTAssertTrue(String(reflecting: DispatchTime.self).hasPrefix("ConveyorCore."))
        XCTAssertTrue(String(reflecting: DispatchSpecificKey<Int>.self).hasPrefix("ConveyorCore."))
        let qos: DispatchQoS = .background
        XCTAssertTrue(String(reflecting: type(of: qos)).hasPrefix("ConveyorCore."))
        let deadline: DispatchTime = .now() + 0.5
        XCTAssertTrue(String(reflecting: type(of: deadline)).hasPrefix("ConveyorCore."))
    }

    func testUserExtensionsAndTypealiasesApplyToConveyorTypes() {
        let queue: Queue = DispatchQueue(label: "drop-in.extension")
        XCTAssertEqual(queue.doubledLabel, "drop-in.extensiondrop-in.extension")
        let seen = DispatchQueue(label: "drop-in.sum")
        nonisolated(unsafe) var total = 0
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            seen.sync { total += index }
        }
        XCTAssertEqual(seen.sync { total }, 6)
    }
}

private typealias Queue = DispatchQueue

extension DispatchQueue {
    fileprivate var doubledLabel: String { label + label }
}

/// Call shapes that name no Conveyor type themselves and so depend on overload resolution.
final class CallShapeTests: XCTestCase {
    func testPreconditionOnImplicitMainQueue() {
        let done = expectation(description: "ran")
        let queue = DispatchQueue(label: "drop-in.shapes")
        queue.async {
            dispatchPrecondition(condition: .notOnQueue(.main))
            dispatchPrecondition(condition: .onQueue(queue))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testDeadlinesFromImplicitMembers() {
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(1)) { group.leave() }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(DispatchSemaphore(value: 0).wait(wallTimeout: .now() + 0.001), .timedOut)
    }
}

/// XCTest runs its cases on the main thread and waits in Foundation's RunLoop: Conveyor's
/// main queue must run there.
final class MainQueueUnderXCTestTests: XCTestCase {
    func testMainQueueAsyncFulfilsAnExpectation() {
        let done = expectation(description: "main queue ran")
        DispatchQueue.global().async {
            DispatchQueue.main.async {
                XCTAssertTrue(Thread.isMainThread)
                dispatchPrecondition(condition: .onQueue(.main))
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
    }

    func testMainQueueSyncFromAWorkerWhileTheTestWaits() {
        let done = expectation(description: "sync returned")
        DispatchQueue.global().async {
            let onMain = DispatchQueue.main.sync { Thread.isMainThread }
            XCTAssertTrue(onMain)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testRunLoopRunUntilDrainsTheMainQueue() {
        final class Flag: @unchecked Sendable { var ran = false }   // main thread only
        let flag = Flag()
        DispatchQueue.main.async { flag.ran = true }
        let end = Date(timeIntervalSinceNow: 10)
        while !flag.ran && Date() < end { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.5)) }
        XCTAssertTrue(flag.ran)
    }

    @MainActor
    func testMainActorTaskRunsWhileTheTestWaits() {
        let done = expectation(description: "MainActor task ran")
        Task { @MainActor in
            dispatchPrecondition(condition: .onQueue(.main))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }
}
