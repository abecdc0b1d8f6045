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

extension DispatchIO {
    /// Reads up to `maxLength` bytes from `fromFileDescriptor` and calls `handler` once
    /// with all of them and the error (0 at the end of the file). A pipe or socket
    /// completes as soon as some data was read and no more is ready. The handler runs once
    /// no channel uses the descriptor any more, as in libdispatch.
    @preconcurrency public class func read(fromFileDescriptor: Int32, maxLength: Int, runningHandlerOn queue: DispatchQueue,
                           handler: @escaping @Sendable (_ data: DispatchData, _ error: Int32) -> Void) {
        let call = UncheckedReadHandler(call: handler)
        let entry = IOFileEntry.forDescriptor(fromFileDescriptor)
        if entry.err != 0 {
            let error = entry.err
            entry.release()
            queue.async { call.call(.empty, error) }
            return
        }
        entry.barrierQueue.async {
            let result = ConvenienceResult()
            entry.addCleanup { queue.async { call.call(result.data ?? .empty, result.error) } }
            let operation = IOOperation(
                direction: .read, channel: convenienceChannel(of: entry), entry: entry, offset: 0,
                length: maxLength < 0 ? Int.max : maxLength, data: .empty, params: IOParameters(),
                queue: DispatchQueue.global(), handler: IOHandler { done, data, error in
                    if let data {
                        var all = result.data ?? .empty
                        all.append(data)
                        result.data = all
                    }
                    if done { result.error = error }
                }, isConvenience: true)
            // Nothing to read: the handler runs with empty data when the entry goes.
            if maxLength != 0 { operation.channel.enqueue(operation) }
            entry.release()
        }
    }

    /// Writes all of `data` to `toFileDescriptor` and calls `handler` once with nil and
    /// 0, or with the data left unwritten and the error (`EPIPE` for a pipe whose reader is
    /// gone; the process is not killed by SIGPIPE).
    @preconcurrency public class func write(toFileDescriptor: Int32, data: DispatchData, runningHandlerOn queue: DispatchQueue,
                            handler: @escaping @Sendable (_ data: DispatchData?, _ error: Int32) -> Void) {
        let call = UncheckedWriteHandler(call: handler)
        let entry = IOFileEntry.forDescriptor(toFileDescriptor)
        if entry.err != 0 {
            let error = entry.err
            entry.release()
            queue.async { call.call(nil, error) }
            return
        }
        entry.barrierQueue.async {
            let result = ConvenienceResult()
            entry.addCleanup { queue.async { call.call(result.data, result.error) } }
            let operation = IOOperation(
                direction: .write, channel: convenienceChannel(of: entry), entry: entry, offset: 0,
                length: data.count, data: data, params: IOParameters(), queue: DispatchQueue.global(),
                handler: IOHandler { done, remaining, error in
                    if done {
                        result.data = remaining
                        result.error = error
                    }
                }, isConvenience: true)
            if data.count != 0 { operation.channel.enqueue(operation) }
            entry.release()
        }
    }

    /// The entry's convenience channel (made on its barrier queue).
    private static func convenienceChannel(of entry: IOFileEntry) -> DispatchIO {
        if let channel = entry.convenienceChannel { return channel }
        let channel = DispatchIO(convenienceFor: entry)
        entry.convenienceChannel = channel
        return channel
    }
}

/// What a convenience call collected; written on its operation's queue, read by the
/// entry's cleanup after the last handler returned.
private final class ConvenienceResult: @unchecked Sendable {
    var data: DispatchData?
    var error: Int32 = 0
}

private struct UncheckedReadHandler: @unchecked Sendable {
    let call: (DispatchData, Int32) -> Void
}

private struct UncheckedWriteHandler: @unchecked Sendable {
    let call: (DispatchData?, Int32) -> Void
}
