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

/// Misuse of the C API (Sources/ConveyorCore/CAPI) traps with a message naming the call;
/// each runs in a child process. The C harness (Tests/CAPI, Scripts/c-api.sh) covers the
/// API's behaviour from C.
@Suite struct CAPITrapTests {
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    /// A static record as the C target lays them out: a tag word, then one value.
    static func record(tag: UInt, value: UInt) -> UnsafeMutableRawPointer {
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: 2)
        words[0] = tag
        words[1] = value
        return UnsafeMutableRawPointer(words)
    }

    /// dispatch_once for a predicate from inside its own function: it hung (found by a
    /// fresh-eyes review); libdispatch crashes.
    @Test func aRecursiveDispatchOnceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let predicate = UnsafeMutablePointer<Int>.allocate(capacity: 1)
            predicate.initialize(to: 0)
            cnv_dispatch_once_f(predicate, predicate) { raw in
                let same = raw!.assumingMemoryBound(to: Int.self)
                cnv_dispatch_once_f(same, nil) { _ in }
            }
        }
        #expect(Self.message(result).contains("dispatch_once called for a predicate from inside its own function"))
    }

    @Test func nullQueueTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_dispatch_async_f(nil, nil) { _ in }
        }
        #expect(Self.message(result).contains("dispatch_async_f called with a NULL object"))
    }

    @Test func anotherKindOfObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_dispatch_sync_f(cnv_dispatch_group_create(), nil) { _ in }
        }
        #expect(Self.message(result).contains("dispatch_sync_f called with a group, not a queue"))
    }

    @Test func somethingElseThanAnObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_dispatch_retain(CAPITrapTests.record(tag: CStaticTag.queueAttributes, value: 1))
        }
        #expect(Self.message(result).contains("dispatch_retain called with something that is not a dispatch object"))
    }

    @Test func aBadQueueAttributeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = cnv_dispatch_queue_create("q", CAPITrapTests.record(tag: CStaticTag.sourceType, value: 1))
        }
        #expect(Self.message(result).contains("a queue attribute argument is not a dispatch_queue_attr_t"))
    }

    @Test func mergingDataIntoATimerTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let timerType = CAPITrapTests.record(tag: CStaticTag.sourceType, value: CSourceType.timer.rawValue)
            let timer = cnv_dispatch_source_create(timerType, 0, 0, nil)
            cnv_dispatch_source_merge_data(timer, 1)
        }
        #expect(Self.message(result).contains("dispatch_source_merge_data on a timer source"))
    }

    @Test func settingATimerOnADataSourceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let addType = CAPITrapTests.record(tag: CStaticTag.sourceType, value: CSourceType.dataAdd.rawValue)
            let source = cnv_dispatch_source_create(addType, 0, 0, nil)
            cnv_dispatch_source_set_timer(source, 0, 1_000_000, 0)
        }
        #expect(Self.message(result).contains("dispatch_source_set_timer on a user-data add source"))
    }

    @Test func aQueueWhereDataIsNeededTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = cnv_dispatch_data_get_size(cnv_dispatch_queue_create("q", nil))
        }
        #expect(Self.message(result).contains("dispatch_data_get_size called with a queue, not a data object"))
    }

    @Test func aGroupWhereAChannelIsNeededTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_dispatch_io_close(cnv_dispatch_group_create(), 0)
        }
        #expect(Self.message(result).contains("dispatch_io_close called with a group, not an I/O channel"))
    }

    @Test func aPlainBlockWhereABlockObjectIsNeededTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            cnv_capi_block_misuse("dispatch_block_wait")
        }
        #expect(Self.message(result).contains("dispatch_block_wait called with a block not made by dispatch_block_create"))
    }
}

/// The C API's entry points called from Swift: what C reaches through the headers.
@Suite struct CAPITests {
    @Test func functionJobsRunInOrderAndAreRecycled() {
        let queue = cnv_dispatch_queue_create("capi.order", nil)
        defer { cnv_dispatch_release(queue) }
        // log[0]: jobs run; log[1...1000]: their order; log[1001]: how many jobs found a
        // finished function job in their own thread's cache (or its depot) when they ran.
        let log = UnsafeMutablePointer<Int>.allocate(capacity: 1002)
        defer { log.deallocate() }
        log[0] = 0
        log[1001] = 0
        for _ in 0..<1000 {
            cnv_dispatch_async_f(queue, log) { raw in
                let log = raw!.assumingMemoryBound(to: Int.self)
                log[0] += 1
                log[log[0]] = log[0]
                if let recycled = JobCache.withCurrent({ $0.takeFunctionJob() }) {
                    JobCache.withCurrent { $0.put(Unmanaged<RecycledJob>.passRetained(recycled)) }
                    log[1001] += 1
                }
            }
        }
        cnv_dispatch_sync_f(queue, nil) { _ in }
        #expect(log[0] == 1000)
        #expect((1...1000).allSatisfy { log[$0] == $0 })
        // Jobs that ran one after the other on one worker find their predecessor in that
        // worker's cache. (Looking from the submitting thread instead was flaky: a drain
        // that moved between workers left each cache under its spill threshold.)
        #expect(log[1001] > 0)
    }

    @Test func onceRunsOnceAcrossThreads() {
        let predicate = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { predicate.deallocate() }
        predicate.pointee = 0
        let calls = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { calls.deallocate() }
        calls.pointee = 0
        let predicateBits = UInt(bitPattern: predicate), callsBits = UInt(bitPattern: calls)
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            cnv_dispatch_once_f(UnsafeMutablePointer(bitPattern: predicateBits)!, UnsafeMutableRawPointer(bitPattern: callsBits)) { raw in
                raw!.assumingMemoryBound(to: Int.self).pointee += 1
            }
        }
        #expect(calls.pointee == 1)
        #expect(predicate.pointee == ~0)
    }

    /// libdispatch's private DISPATCH_QUEUE_OVERCOMMIT flag (2) is accepted, others not:
    /// it gives the overcommitting global queue, another queue than the plain one and
    /// named as libdispatch names it (its work always gets a thread: capi-test.c).
    @Test func globalQueueTakesTheOvercommitFlag() {
        let overcommit = cnv_dispatch_get_global_queue(2, 2)
        #expect(overcommit != nil && overcommit != cnv_dispatch_get_global_queue(2, 0))
        #expect(overcommit == cnv_dispatch_get_global_queue(2, 2))
        #expect(String(cString: cnv_dispatch_queue_get_label(overcommit)) == "com.apple.root.user-initiated-qos.overcommit")
        #expect(cnv_dispatch_get_global_queue(0, 2) != nil)
        #expect(cnv_dispatch_get_global_queue(0, 1) == nil)
    }

    @Test func timeEncodingMatchesLibdispatch() {
        #expect(cnv_dispatch_time(~0, 5) == ~0)
        let now = cnv_dispatch_time(0, 0)
        #expect(cnv_dispatch_time(now, 1_000) == now + 1_000)
        #expect(Int64(bitPattern: cnv_dispatch_walltime(nil, 0)) < 0)
    }
}
