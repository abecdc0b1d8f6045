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

import CConveyor
@testable import ConveyorCore
import Testing

/// The C API's static objects (the main queue, DISPATCH_QUEUE_CONCURRENT, the source types,
/// the empty data) are defined in C by two libraries and recognized in Swift: the numbers
/// all three use come from one header, `cnv_static_objects.h`. Swift's enum of source
/// types needs literal raw values, so this checks them against the header.
@Suite struct CStaticObjectTests {
    @Test func sourceTypeNumbersAreTheHeaders() {
        let expected: [(CSourceType, Int32)] = [
            (.dataAdd, CNV_SOURCE_TYPE_DATA_ADD), (.dataOr, CNV_SOURCE_TYPE_DATA_OR),
            (.dataReplace, CNV_SOURCE_TYPE_DATA_REPLACE), (.machSend, CNV_SOURCE_TYPE_MACH_SEND),
            (.machReceive, CNV_SOURCE_TYPE_MACH_RECV), (.memoryPressure, CNV_SOURCE_TYPE_MEMORYPRESSURE),
            (.process, CNV_SOURCE_TYPE_PROC), (.read, CNV_SOURCE_TYPE_READ), (.signal, CNV_SOURCE_TYPE_SIGNAL),
            (.timer, CNV_SOURCE_TYPE_TIMER), (.vnode, CNV_SOURCE_TYPE_VNODE), (.write, CNV_SOURCE_TYPE_WRITE),
        ]
        for (type, number) in expected {
            #expect(type.rawValue == UInt(number), "\(type)")
        }
    }

    @Test func tagsAreDistinctAndBelowTheLimit() {
        let tags = [CStaticTag.mainQueue, CStaticTag.queueAttributes, CStaticTag.sourceType, CStaticTag.dataEmpty]
        #expect(Set(tags).count == tags.count)
        #expect(tags.allSatisfy { $0 > 0 && $0 < CStaticTag.limit })
    }
}
