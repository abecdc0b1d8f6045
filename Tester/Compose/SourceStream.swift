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
import Synchronization

/// A timer source feeding an `AsyncStream` (`Program.Op.sourceStream`, Swift API), the
/// usual bridge from a source to Swift concurrency: the timer on `q` yields 0, 1, 2, … and
/// finishes the stream after `ticks` events; a task reads the stream, and stops early
/// after `consumerStops` values when set. The stream's termination handler, which runs
/// wherever the stream ends (inside the event handler that finishes it, or in the reading
/// task that stops), cancels the source. The reader must see 0, 1, 2, … in order, all
/// `ticks` of them unless it stopped; the handlers are blocks of `q`; the cancel handler
/// runs once, and no event handler after it.
extension Runner {
    func sourceStream(_ q: Int, ticks: Int, microseconds: Int, consumerStops: Int?) {
        let what = "timer feeding an AsyncStream on q\(q)"
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let source = DispatchSource.makeTimerSource(queue: queues[q])
        let sent = Atomic<Int>(0)
        let cancelHandler = Once("\(what): cancel handler")
        let cancelHandlerRan = Flag()
        // The toolchain's source types are not Sendable; the source is only cancelled here.
        final class Canceller: @unchecked Sendable {
            let source: any DispatchSourceProtocol
            init(_ source: any DispatchSourceProtocol) { self.source = source }
        }
        let canceller = Canceller(source)
        continuation.onTermination = { _ in canceller.source.cancel() }
        checker.expect(2)   // the cancel handler, and the reader's end
        source.setEventHandler { [self] in
            enterBlock(q, what: "\(what): event")
            if cancelHandlerRan.isSet { checker.fail("\(what): an event handler ran after the cancel handler") }
            let value = sent.wrappingAdd(1, ordering: .relaxed).oldValue
            if value < ticks { continuation.yield(value) }
            if value + 1 == ticks { continuation.finish() }
            checker.leave(q, barrier: false)
        }
        source.setCancelHandler { [self] in
            enterBlock(q, what: "\(what): cancel handler")
            cancelHandler.run(checker)
            cancelHandlerRan.set()
            checker.leave(q, barrier: false)
            checker.done()
        }
        let interval = DispatchTimeInterval.microseconds(microseconds)
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .microseconds(microseconds / 4))
        source.activate()
        Task.detached { [self] in
            var expected = 0
            for await value in stream {
                if value != expected { checker.fail("\(what): the stream gave \(value) where \(expected) was next") }
                expected = value + 1
                if let consumerStops, expected == consumerStops { break }
            }
            if consumerStops.map({ expected < $0 }) ?? true, expected != ticks {
                checker.fail("\(what): the stream ended after \(expected) of \(ticks) values")
            }
            checker.done()
        }
    }
}
