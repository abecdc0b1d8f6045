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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif

/// `DispatchData`: contents, regions, indices and copies, through every call.
enum DataQuestions {
    static func make(_ bytes: [UInt8]) -> DispatchData {
        bytes.withUnsafeBytes { DispatchData(bytes: $0) }
    }

    /// The regions, as `enumerateBytes` visits them (the toolchain's Dispatch on Linux has
    /// no `regions`).
    static func regions(_ data: DispatchData) -> [[UInt8]] {
        var regions: [[UInt8]] = []
        data.enumerateBytes { buffer, _, _ in regions.append(Array(buffer)) }
        return regions
    }

    static func ask() {
        answer("empty count", DispatchData.empty.count)
        answer("empty regions", regions(.empty))
        answer("empty start/end", "\(DispatchData.empty.startIndex) \(DispatchData.empty.endIndex)")
        let empty = [UInt8]().withUnsafeBytes { DispatchData(bytes: $0) }
        answer("from no bytes count", empty.count)
        answer("from no bytes regions", regions(empty))

        var data = make([1, 2, 3])
        answer("three bytes", Array(data))
        answer("three bytes regions", regions(data))
        data.append(make([4, 5]))
        answer("appended", Array(data))
        answer("appended regions", regions(data))
        data.append(DispatchData.empty)
        answer("appended empty regions", regions(data))
        [UInt8]([6]).withUnsafeBytes { data.append($0) }
        answer("appended buffer regions", regions(data))
        answer("appended buffer count", data.count)
        data.append(UnsafeRawBufferPointer(start: nil, count: 0))
        answer("appended empty buffer regions", regions(data))
        var prefixed = DispatchData.empty
        prefixed.append(make([9]))
        answer("empty then appended regions", regions(prefixed))

        answer("subdata 1..<4", Array(data.subdata(in: 1..<4)))
        answer("subdata 1..<4 regions", regions(data.subdata(in: 1..<4)))
        answer("subdata 3..<5 regions", regions(data.subdata(in: 3..<5)))
        answer("subdata 2..<2 count", data.subdata(in: 2..<2).count)
        answer("subdata 0..<6 regions", regions(data.subdata(in: 0..<6)))
        answer("subscript 4", data[4])
        answer("start, end", "\(data.startIndex) \(data.endIndex)")
        answer("index after 2, before 2", "\(data.index(after: 2)) \(data.index(before: 2))")
        answer("first, last", "\(data.first as Any) \(data.last as Any)")
        answer("reversed", Array(data.reversed()))
        let (region, offset) = data.region(location: 4)
        answer("region at 4", "\(Array(region)) at \(offset)")
        let (first, firstOffset) = data.region(location: 0)
        answer("region at 0", "\(Array(first)) at \(firstOffset)")
        answer("contiguous bytes", data.withUnsafeBytes { (pointer: UnsafePointer<UInt8>) in (0..<data.count).map { pointer[$0] } })

        var copied = [UInt8](repeating: 0, count: 4)
        _ = copied.withUnsafeMutableBufferPointer { data.copyBytes(to: $0, from: 2..<6) }
        answer("copyBytes from 2..<6", copied)
        var short = [UInt8](repeating: 0, count: 2)
        let count = short.withUnsafeMutableBufferPointer { data.copyBytes(to: $0) }
        answer("copyBytes into 2", "\(short) \(count)")
        var some = [UInt8](repeating: 0, count: 6)
        some.withUnsafeMutableBytes { data.copyBytes(to: $0, count: 3) }
        answer("copyBytes count 3", some)

        var enumerated: [String] = []
        data.enumerateBytes { buffer, offset, _ in enumerated.append("\(Array(buffer))@\(offset)") }
        answer("enumerateBytes", enumerated)
        var stopped: [Int] = []
        data.enumerateBytes { buffer, offset, stop in stopped.append(offset); stop = true }
        answer("enumerateBytes stop", stopped)

        var source: [UInt8] = [7, 7, 7]
        let copy = source.withUnsafeBytes { DispatchData(bytes: $0) }
        source[0] = 0
        answer("bytes are copied", Array(copy))

        let released = DispatchSemaphore(value: 0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        buffer.copyBytes(from: [1, 2, 3, 4])
        do {
            let noCopy = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(buffer), deallocator: .custom(nil, {
                buffer.deallocate()
                released.signal()
            }))
            answer("bytesNoCopy contents", Array(noCopy))
            answer("bytesNoCopy regions", regions(noCopy))
        }
        answer("custom deallocator ran", released.wait(timeout: .now() + 5))
    }
}
