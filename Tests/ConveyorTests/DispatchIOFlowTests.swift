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
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DispatchIOFlowTests {
    @Test func aSlowHandlerBoundsTheDataInFlight() async {
        // In a child process: DataRegion.live counts every region of the process.
        await #expect(processExitsWith: .success) {
            let most = mostLiveRegionsReading(size: 48 * 1024 * 1024, name: "slowhandler", handlerMicroseconds: 3_000)
            // At most the in-flight budget (4 MiB) plus the chunk that crossed it, and the
            // one being read: without the bound, all 48 chunks would pile up.
            exit(most <= 8 ? 0 : 4)
        }
    }

    /// A handler that takes 100 ms a chunk, longer than the grace a pause waits for a
    /// returning handler, still bounds the read: the pause holds while handlers keep
    /// returning (a review found the first grace timer lapsing it between two returns, and
    /// a reader at 100 ms a chunk reaching 879 MiB of memory in 3 s).
    @Test func aHandlerSlowerThanTheGraceStillBoundsTheRead() async {
        await #expect(processExitsWith: .success) {
            let most = mostLiveRegionsReading(size: 16 * 1024 * 1024, name: "slowerhandler", handlerMicroseconds: 100_000)
            exit(most <= 8 ? 0 : 4)
        }
    }

    /// A read whose handler queue is busy with the very block that writes what the read
    /// drains completes, as on libdispatch. The pause for a slow handler used to wait for
    /// that queue for ever once 4 MiB were in flight (a review's finding: every run hung);
    /// the pause now lapses when no handler returns within its grace.
    @Test func aReadCompletesWhileItsHandlerQueueWritesWhatItReads() async {
        await #expect(processExitsWith: .success) {
            let size = 8 * 1024 * 1024
            let (reader, writer) = makePipe()
            let queue = DispatchQueue(label: "handlers and writer")
            let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: .global()) { _ in }
            let got = Atomic<Int>(0)
            let done = DispatchSemaphore(value: 0)
            channel.read(offset: 0, length: Int.max, queue: queue) { finished, data, _ in
                got.add(data?.count ?? 0, ordering: .relaxed)
                if finished { done.signal() }
            }
            queue.async {
                let bytes = [UInt8](repeating: 7, count: size)
                var written = 0
                while written < size {
                    let count = bytes.withUnsafeBytes { write(writer, $0.baseAddress! + written, size - written) }
                    if count <= 0 { exit(4) }
                    written += count
                }
                close(writer)
            }
            guard done.wait(timeout: deadline()) == .success else { exit(2) }
            exit(got.load(ordering: .relaxed) == size ? 0 : 3)
        }
    }

    /// A large write whose handler queue is busy with the block that reads the pipe it
    /// fills completes, as on libdispatch. Each progress report used to count the data
    /// not yet written as bytes waiting for the handler, so from 2 MiB on the lane paused
    /// for that queue for ever (a review's finding).
    @Test func aLargeWriteCompletesWhileItsHandlerQueueReadsThePipe() async {
        await #expect(processExitsWith: .success) {
            let size = 3 * 1024 * 1024
            let (reader, writer) = makePipe()
            let queue = DispatchQueue(label: "handlers and reader")
            let channel = DispatchIO(type: .stream, fileDescriptor: writer, queue: .global()) { _ in }
            let done = DispatchSemaphore(value: 0)
            let failure = Atomic<Int32>(0)
            let payload = [UInt8](repeating: 9, count: size).withUnsafeBytes { DispatchData(bytes: $0) }
            channel.write(offset: 0, data: payload, queue: queue) { finished, _, error in
                if error != 0 { failure.store(error, ordering: .relaxed) }
                if finished { done.signal() }
            }
            queue.async {
                var total = 0
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while total < size {
                    let count = read(reader, &buffer, buffer.count)
                    if count <= 0 { exit(4) }
                    total += count
                }
            }
            guard done.wait(timeout: deadline()) == .success else { exit(2) }
            exit(failure.load(ordering: .relaxed) == 0 ? 0 : 3)
        }
    }

    /// A channel stopped right after a read was submitted: the read's final handler
    /// (ECANCELED) returns before the cleanup handler runs, on every channel (issue 25,
    /// finding 4: the handler of a read that reached the channel's file only after the
    /// stop was delivered without holding the file, and 33 to 43 of about 6,000 channels
    /// ran their cleanup first). The handlers run on a concurrent queue, where only that
    /// hold orders them. Batches of 250 pipes keep the open descriptors bounded.
    @Test func aStoppedChannelRunsItsCleanupAfterTheFinalReadHandler() {
        let channels = 2_000, batch = 250
        let early = Atomic<Int>(0), finals = Atomic<Int>(0)
        for _ in 0..<(channels / batch) {
            let cleaned = DispatchSemaphore(value: 0)
            for _ in 0..<batch {
                let (reader, writer) = makePipe()
                let finalReturned = Atomic<Bool>(false)
                let channel = DispatchIO(type: .stream, fileDescriptor: reader, queue: .global()) { _ in
                    if !finalReturned.load(ordering: .acquiring) { early.wrappingAdd(1, ordering: .relaxed) }
                    close(reader)
                    close(writer)
                    cleaned.signal()
                }
                channel.read(offset: 0, length: 100, queue: .global()) { done, _, _ in
                    guard done else { return }
                    finals.wrappingAdd(1, ordering: .relaxed)
                    finalReturned.store(true, ordering: .releasing)
                }
                channel.close(flags: .stop)
            }
            for _ in 0..<batch { #expect(cleaned.wait(timeout: deadline()) == .success) }
        }
        #expect(early.load(ordering: .relaxed) == 0, "cleanup ran before the final read handler")
        #expect(finals.load(ordering: .relaxed) == channels)
    }
}

/// Reads a pattern file of `size` bytes through a random-access channel whose handler
/// sleeps `handlerMicroseconds` on each call, and returns the most data regions alive at
/// once, as the handler saw them. For a child process: exits 2 when the read does not end
/// by the deadline, 3 when not every byte arrived.
private func mostLiveRegionsReading(size: Int, name: String, handlerMicroseconds: UInt32) -> Int {
    let path = makePatternFile(size: size, name: name)
    defer { unlink(path) }
    let fd = open(path, O_RDONLY)
    let most = Atomic<Int>(0)
    let total = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)
    let channel = DispatchIO(type: .random, fileDescriptor: fd, queue: .global()) { _ in }
    channel.read(offset: 0, length: Int.max, queue: DispatchQueue(label: name)) { finished, data, _ in
        let live = DataRegion.live.load(ordering: .relaxed)
        if live > most.load(ordering: .relaxed) { most.store(live, ordering: .relaxed) }
        total.add(data?.count ?? 0, ordering: .relaxed)
        usleep(handlerMicroseconds)
        if finished { done.signal() }
    }
    guard done.wait(timeout: deadline()) == .success else { exit(2) }
    channel.close()
    guard total.load(ordering: .relaxed) == size else { exit(3) }
    return most.load(ordering: .relaxed)
}
