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
import ConveyorDispatchInterop
import Foundation
import XCTest

/// Conveyor's `DispatchData` to the toolchain's (sharing the bytes) and back (one copy),
/// as code that hands data to Foundation needs (`Data(_:)` takes the toolchain's type).
final class DispatchDataBridgeTests: XCTestCase {
    func testConveyorDataBecomesDispatchDataWithTheSameBytesWithoutACopy() {
        let first: [UInt8] = [1, 2, 3]
        let second: [UInt8] = [4, 5, 6, 7]
        var data = Conveyor.DispatchData.empty
        first.withUnsafeBytes { data.append($0) }
        second.withUnsafeBytes { data.append($0) }
        let bridged = Dispatch.DispatchData(data)
        XCTAssertEqual(Array(bridged), first + second)
        // Shared, not copied: each region there is one of Conveyor's, at the same address.
        var conveyorRegions: [UnsafeRawPointer?] = []
        data.enumerateBytes { buffer, _, _ in conveyorRegions.append(UnsafeRawPointer(buffer.baseAddress)) }
        var bridgedRegions: [UnsafeRawPointer?] = []
        bridged.enumerateBytes { buffer, _, _ in bridgedRegions.append(UnsafeRawPointer(buffer.baseAddress)) }
        XCTAssertEqual(conveyorRegions.count, 2)
        XCTAssertEqual(bridgedRegions, conveyorRegions)
        XCTAssertEqual(Data(bridged), Data(first + second))
    }

    func testTheBridgedBytesOutliveTheConveyorValue() {
        var bridged: Dispatch.DispatchData?
        do {
            let bytes = [UInt8](repeating: 0xAB, count: 4096)
            let data = bytes.withUnsafeBytes { Conveyor.DispatchData(bytes: $0) }
            bridged = Dispatch.DispatchData(data)
        }
        XCTAssertEqual(bridged.map { Array($0) }, [UInt8](repeating: 0xAB, count: 4096))
    }

    /// Foundation's `DataProtocol`, as the toolchain's data has it: generic code takes
    /// Conveyor's data region by region.
    func testConveyorDataIsDataProtocol() {
        func describe<Bytes: DataProtocol>(_ bytes: Bytes) -> (regions: Int, data: Data, found: Range<Bytes.Index>?) {
            (bytes.regions.count, Data(bytes), bytes.firstRange(of: Array("lo, w".utf8)))
        }
        var data = Conveyor.DispatchData.empty
        [UInt8]("hello, ".utf8).withUnsafeBytes { data.append($0) }
        [UInt8]("world".utf8).withUnsafeBytes { data.append($0) }
        let whole = describe(data)
        XCTAssertEqual(whole.regions, 2)
        XCTAssertEqual(whole.data, Data("hello, world".utf8))
        XCTAssertEqual(whole.found, 3..<8)
        let region = describe(data.regions[1])
        XCTAssertEqual(region.regions, 1)
        XCTAssertEqual(region.data, Data("world".utf8))
        var copied = [UInt8](repeating: 0, count: 5)
        XCTAssertEqual(copied.withUnsafeMutableBytes { data.regions[1].copyBytes(to: $0) }, 5)
        XCTAssertEqual(copied, Array("world".utf8))
        XCTAssertEqual(Data(data[2..<9]), Data("llo, wo".utf8))
    }

    func testDispatchDataBecomesConveyorDataInOneRegion() {
        var data = Dispatch.DispatchData.empty
        [UInt8]("hello, ".utf8).withUnsafeBytes { data.append($0) }
        [UInt8]("world".utf8).withUnsafeBytes { data.append($0) }
        let converted = Conveyor.DispatchData(data)
        XCTAssertEqual(String(decoding: Array(converted), as: UTF8.self), "hello, world")
        var regions = 0
        converted.enumerateBytes { _, _, _ in regions += 1 }
        XCTAssertEqual(regions, 1)
        XCTAssertEqual(Conveyor.DispatchData(Dispatch.DispatchData.empty).count, 0)
    }
}
