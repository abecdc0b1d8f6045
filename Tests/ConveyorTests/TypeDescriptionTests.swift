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

/// What users see when they print Conveyor's values names the module they import, as the
/// toolchain's Dispatch prints `Dispatch.DispatchQueue`, never the implementation module.
@Suite struct TypeDescriptionTests {
    @Test func objectsPrintAsDispatchPrintsThem() {
        let queue = DispatchQueue(label: "printed")
        #expect(String(describing: queue) == "Conveyor.DispatchQueue")
        #expect(String(describing: DispatchQueue.global()) == "Conveyor.DispatchQueue")
        #expect(String(describing: DispatchGroup()) == "Conveyor.DispatchGroup")
        #expect(String(describing: DispatchSemaphore(value: 1)) == "Conveyor.DispatchSemaphore")
        #expect(String(describing: DispatchWorkItem {}) == "Conveyor.DispatchWorkItem")
        #expect(String(describing: DispatchSpecificKey<Int>()) == "Conveyor.DispatchSpecificKey<Swift.Int>")
        let source = DispatchSource.makeTimerSource()
        #expect(String(describing: source) == "Conveyor.DispatchSource")
        source.cancel()
        source.activate()
        #expect(String(describing: DispatchQoS.default) == "DispatchQoS(qosClass: Conveyor.DispatchQoS.QoSClass.default, relativePriority: 0)")
        #expect(String(reflecting: DispatchPredicate.onQueue(queue)) == "Conveyor.DispatchPredicate.onQueue(Conveyor.DispatchQueue)"
                || String(describing: DispatchPredicate.onQueue(queue)) == "onQueue(Conveyor.DispatchQueue)")
        #expect(String(describing: DispatchData.empty) == "0 bytes")
    }

    @Test func noPrintedValueNamesTheImplementationModule() {
        let values: [Any] = [
            DispatchQueue(label: "x"), DispatchQueue.main, DispatchQoS.userInitiated, DispatchWorkItem {},
            DispatchPredicate.notOnQueue(.main), DispatchData.empty, DispatchGroup(),
        ]
        for value in values {
            #expect(!String(describing: value).contains("ConveyorCore"), "\(value)")
            #expect(!String(reflecting: value).contains("ConveyorCore"), "\(String(reflecting: value))")
        }
    }
}
