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
#if canImport(Glibc)
import Glibc
#endif

// The expected values below were checked against the toolchain's Dispatch module with the
// same calls (a scratch program compiled once with `import Dispatch`, once with Conveyor).

private func data(_ text: String) -> DispatchData {
    Array(text.utf8).withUnsafeBytes { DispatchData(bytes: $0) }
}

private func text(_ value: DispatchData) -> String { String(decoding: Array(value), as: UTF8.self) }

private func regions(_ value: DispatchData) -> [String] {
    var out: [String] = []
    value.enumerateBytes { buffer, index, _ in out.append("\(index):\(String(decoding: buffer, as: UTF8.self))") }
    return out
}

/// "hello world!!" as four regions: "hello", " ", "world", "!!".
private func sample() -> DispatchData {
    var value = data("hello")
    value.append(data(" "))
    value.append(data("world"))
    Array("!!".utf8).withUnsafeBytes { value.append($0) }
    return value
}

/// Counts deallocator calls and waits for them (custom deallocators run asynchronously).
private final class DeallocCounter: @unchecked Sendable {
    let calls = Counter()
    let done = DispatchSemaphore(value: 0)
    var deallocator: DispatchData.Deallocator {
        .custom(nil) { [self] in calls.increment(); done.signal() }
    }
    func waitForCall() -> Bool { done.wait(timeout: deadline()) == .success }
}

@Suite struct DispatchDataTests {
    @Test func appendKeepsRegionsAndCount() {
        let value = sample()
        #expect(value.count == 13)
        #expect(text(value) == "hello world!!")
        #expect(regions(value) == ["0:hello", "5: ", "6:world", "11:!!"])
        #expect(value.startIndex == 0 && value.endIndex == 13)
        #expect(value.index(after: 3) == 4 && value.index(before: 3) == 2)
        #expect(value[4] == UInt8(ascii: "o") && value[6] == UInt8(ascii: "w"))
        #expect(Array(value[3..<7]) == Array("lo w".utf8))
        #expect(value.first == UInt8(ascii: "h") && value.last == UInt8(ascii: "!"))
        #expect(value.reversed().count == 13 && value.indices.count == 13)
    }

    /// `regions` (Foundation's member on the toolchain's data): each contiguous run, at its
    /// position in the data, its bytes shared and kept alive by the region.
    @Test func regionsAreTheContiguousRunsInOrder() {
        var regions = sample().regions
        #expect(regions.map { "\($0.startIndex):" + String(decoding: Array($0), as: UTF8.self) }
                == ["0:hello", "5: ", "6:world", "11:!!"])
        #expect(regions[2][7] == UInt8(ascii: "o") && regions[2].endIndex == 11)
        #expect(regions[3].regions.count == 1 && Array(regions[3].regions.first!) == Array("!!".utf8))
        let viaPointer = regions[0].withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(viaPointer == "hello")
        #expect(Array(regions[2][7..<9]) == Array("or".utf8))
        let kept = regions[2]
        regions.removeAll()   // the data and the other regions are gone; this one still reads
        #expect(Array(kept) == Array("world".utf8))
        #expect(DispatchData.empty.regions.isEmpty)
    }

    @Test func regionAtLocation() {
        let value = sample()
        let expected: [(Int, String, Int)] = [
            (-1, "", 13), (0, "hello", 0), (4, "hello", 0), (5, " ", 5), (6, "world", 6),
            (10, "world", 6), (11, "!!", 11), (12, "!!", 11), (13, "", 13), (100, "", 13),
        ]
        for (location, bytes, offset) in expected {
            let (region, at) = value.region(location: location)
            #expect(text(region) == bytes && at == offset, "location \(location)")
        }
        let sub = value.subdata(in: 2..<9)
        let subExpected: [(Int, String, Int)] = [(0, "llo", 0), (2, "llo", 0), (3, " ", 3), (4, "wor", 4), (6, "wor", 4), (7, "", 7)]
        for (location, bytes, offset) in subExpected {
            let (region, at) = sub.region(location: location)
            #expect(text(region) == bytes && at == offset, "sub location \(location)")
        }
    }

    @Test func subdataRanges() {
        let value = sample()
        let expected: [(Range<Int>, [String])] = [
            (0..<0, []), (0..<13, ["0:hello", "5: ", "6:world", "11:!!"]),
            (0..<20, ["0:hello", "5: ", "6:world", "11:!!"]), (2..<8, ["0:llo", "3: ", "4:wo"]),
            (5..<6, ["0: "]), (6..<11, ["0:world"]), (12..<13, ["0:!"]), (13..<14, []),
            (3..<100, ["0:lo", "2: ", "3:world", "8:!!"]), (11..<13, ["0:!!"]),
        ]
        for (range, parts) in expected {
            #expect(regions(value.subdata(in: range)) == parts, "range \(range)")
        }
    }

    @Test func copyBytesInAllForms() {
        let value = sample()
        func copied(_ body: (UnsafeMutableRawBufferPointer) -> Void) -> String {
            var buffer = [UInt8](repeating: UInt8(ascii: "."), count: 20)
            buffer.withUnsafeMutableBytes(body)
            return String(decoding: buffer, as: UTF8.self)
        }
        #expect(copied { value.copyBytes(to: $0, from: 3..<9) } == "lo wor..............")
        #expect(copied { value.copyBytes(to: $0, count: 7) } == "hello w.............")
        #expect(copied { value.copyBytes(to: $0, from: 10..<20) } == "d!!.................")
        #expect(copied { value.copyBytes(to: $0, from: 20..<25) } == "....................")
        let cases: [(Int, Range<Int>?, Int, String)] = [
            (4, 2..<10, 4, "llo "), (20, nil, 13, "hello world!!......."), (3, nil, 3, "hel"),
            (20, 12..<13, 1, "!..................."), (20, 0..<0, 0, "...................."),
        ]
        for (capacity, range, count, result) in cases {
            var buffer = [UInt8](repeating: UInt8(ascii: "."), count: capacity)
            let n = buffer.withUnsafeMutableBufferPointer { value.copyBytes(to: $0, from: range) }
            #expect(n == count && String(decoding: buffer, as: UTF8.self) == result)
        }
        var words = [UInt32](repeating: 0, count: 2)
        #expect(words.withUnsafeMutableBufferPointer { value.copyBytes(to: $0, from: 1..<12) } == 8)
        #expect(words == [1_869_376_613, 1_919_907_616])
    }

    @Test func enumerateBytesStops() {
        var seen: [Int] = []
        sample().enumerateBytes { _, index, stop in
            seen.append(index)
            if index >= 5 { stop = true }
        }
        #expect(seen == [0, 5])
    }

    @Test func emptyData() {
        let empty = DispatchData.empty
        #expect(empty.count == 0 && empty.startIndex == 0 && empty.endIndex == 0 && Array(empty).isEmpty)
        #expect(regions(empty).isEmpty)
        #expect(empty.region(location: 0).offset == 0 && empty.region(location: 0).data.count == 0)
        #expect(empty.subdata(in: 0..<3).count == 0)
        // libdispatch force-unwraps a null pointer here (crashes); Conveyor passes a valid one.
        #expect(empty.withUnsafeBytes { (_: UnsafePointer<UInt8>) in 7 } == 7)
        var appended = DispatchData.empty
        appended.append(UnsafeRawBufferPointer(start: nil, count: 0))
        appended.append(DispatchData.empty)
        #expect(appended.count == 0)
        #expect(DispatchData(bytes: UnsafeRawBufferPointer(start: nil, count: 0)).count == 0)
    }

    @Test func withUnsafeBytesFlattensOnceAndCaches() {
        let value = sample()
        #expect(!value.storage.hasFlattenedCopy)
        let first = value.withUnsafeBytes { (p: UnsafePointer<UInt8>) in (UnsafeRawPointer(p), String(decoding: UnsafeBufferPointer(start: p, count: 13), as: UTF8.self)) }
        #expect(first.1 == "hello world!!")
        #expect(value.storage.hasFlattenedCopy)
        let second = value.withUnsafeBytes { (p: UnsafePointer<UInt8>) in UnsafeRawPointer(p) }
        #expect(first.0 == second)
        #expect(value.withUnsafeBytes { (p: UnsafePointer<UInt16>) in p[0] } == 25960)
        // One region: the bytes in place, no copy.
        let single = data("abc")
        let inPlace = single.withUnsafeBytes { (p: UnsafePointer<UInt8>) in UnsafeRawPointer(p) }
        #expect(inPlace == single.storage.slices[0].region.base)
        #expect(!single.storage.hasFlattenedCopy)
    }

    @Test func copyOnWriteKeepsOtherValues() {
        let original = sample()
        var copy = original
        copy.append(data("x"))
        #expect(original.count == 13 && copy.count == 14)
        #expect(text(original) == "hello world!!")
    }

    @Test func appendAndSliceShareRegionsInsteadOfCopying() {
        let a = data("abcdef")
        var b = data("012")
        b.append(a)
        let base = a.storage.slices[0].region
        #expect(b.storage.slices[1].region === base)
        #expect(a.subdata(in: 1..<4).storage.slices[0].region === base)
        #expect(b.region(location: 5).data.storage.slices[0].region === base)
    }

    @Test func iteratorWalksAllRegions() {
        var iterator = sample().makeIterator()
        var bytes: [UInt8] = []
        while let byte = iterator.next() { bytes.append(byte) }
        #expect(bytes == Array("hello world!!".utf8))
        var emptyIterator = DispatchDataIterator(_data: .empty)
        #expect(emptyIterator.next() == nil)
    }

    @Test func customDeallocatorRunsOnceWhenTheLastReferenceGoes() {
        let counter = DeallocCounter()
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: 65, count: 8)
        weak var region: DataRegion?
        do {
            var whole: DispatchData? = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: bytes, count: 8),
                                                    deallocator: counter.deallocator)
            region = whole!.storage.slices[0].region
            var part = whole!.subdata(in: 2..<4)
            whole = nil
            #expect(counter.calls.current == 0 && region != nil)
            part.append(data("z"))
            #expect(text(part) == "AAz")
            part = .empty
        }
        #expect(counter.waitForCall())
        #expect(region == nil)
        #expect(counter.done.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        #expect(counter.calls.current == 1)
        bytes.deallocate()
    }

    @Test func customDeallocatorRunsOnItsQueue() {
        let queue = DispatchQueue(label: "dealloc-queue")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let seen = TestLog<Int?>()
        let done = DispatchSemaphore(value: 0)
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 1)
        do {
            _ = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: bytes, count: 4),
                             deallocator: .custom(queue) { seen.append(DispatchQueue.getSpecific(key: key)); done.signal() })
        }
        #expect(done.wait(timeout: deadline()) == .success)
        #expect(seen.values == [7])
        bytes.deallocate()
    }

    @Test func emptyBuffersCallTheDeallocatorAtOnceButNilDoesNot() {
        let counter = DeallocCounter()
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        let zero = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: bytes, count: 0), deallocator: counter.deallocator)
        #expect(zero.count == 0)
        #expect(counter.waitForCall())
        _ = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: nil, count: 0), deallocator: counter.deallocator)
        #expect(counter.done.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        #expect(counter.calls.current == 1)
        bytes.deallocate()
    }

    @Test func freeAndUnmapDeallocators() {
        let heap = malloc(16)!
        memset(heap, 1, 16)
        weak var heapRegion: DataRegion?
        do {
            let value = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: heap, count: 16), deallocator: .free)
            heapRegion = value.storage.slices[0].region
            #expect(value.reduce(0) { $0 + Int($1) } == 16)
        }
        #expect(heapRegion == nil)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = mmap(nil, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        #expect(mapped != MAP_FAILED)
        do {
            let value = DispatchData(bytesNoCopy: UnsafeRawBufferPointer(start: mapped, count: page), deallocator: .unmap)
            #expect(value.count == page)
        }
        // The page is gone: mincore fails with ENOMEM on an unmapped range.
        var vector: UInt8 = 0
        #expect(mincore(mapped, page, &vector) == -1 && errno == ENOMEM)
    }

    @Test func manySmallAppendsLeaveNoRegionBehind() {
        weak var firstRegion: DataRegion?
        weak var storage: DataStorage?
        do {
            var value = DispatchData.empty
            var byte: UInt8 = 0
            for _ in 0..<10_000 {
                withUnsafeBytes(of: &byte) { value.append($0) }
                byte &+= 1
            }
            #expect(value.count == 10_000)
            #expect(value.storage.slices.count == 10_000)
            #expect(value[9_999] == UInt8(9_999 % 256))
            _ = value.withUnsafeBytes { (p: UnsafePointer<UInt8>) in p[5_000] }
            firstRegion = value.storage.slices[0].region
            storage = value.storage
        }
        #expect(firstRegion == nil && storage == nil)
    }
}
