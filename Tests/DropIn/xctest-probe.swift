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


// An unmodified XCTest program (XCTMain, as swift-corelibs-xctest runs tests on Linux):
// expectations fulfilled from the main queue and from a timer (XCTest's waits spin the
// main run loop), an async test, and a MainActor test. Scripts/drop-in.sh runs it on
// libdispatch and under the drop-in library.
import Dispatch
import Foundation
import XCTest

final class DispatchUnderXCTest: XCTestCase {
    func testMainQueueFulfilsAnExpectation() {
        let fulfilled = expectation(description: "main queue")
        DispatchQueue.global().async { DispatchQueue.main.async { XCTAssertTrue(Thread.isMainThread); fulfilled.fulfill() } }
        wait(for: [fulfilled], timeout: 10)
    }

    func testTimerSourceFulfilsAnExpectation() {
        let fired = expectation(description: "timer")
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(10))
        timer.setEventHandler { fired.fulfill() }
        timer.resume()
        wait(for: [fired], timeout: 10)
        timer.cancel()
    }

    func testAsyncTest() async throws {
        try await Task.sleep(for: .milliseconds(10))
        let values = await withTaskGroup(of: Int.self) { group in
            for value in 0..<10 { group.addTask { value } }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(values, 45)
    }

    @MainActor
    func testMainActor() async {
        XCTAssertTrue(Thread.isMainThread)
        let value = await Task.detached { 7 }.value
        XCTAssertEqual(value, 7)
        XCTAssertTrue(Thread.isMainThread)
    }
}

XCTMain([
    testCase([
        ("testMainQueueFulfilsAnExpectation", DispatchUnderXCTest.testMainQueueFulfilsAnExpectation),
        ("testTimerSourceFulfilsAnExpectation", DispatchUnderXCTest.testTimerSourceFulfilsAnExpectation),
        ("testAsyncTest", asyncTest(DispatchUnderXCTest.testAsyncTest)),
        ("testMainActor", asyncTest(DispatchUnderXCTest.testMainActor)),
    ]),
])
