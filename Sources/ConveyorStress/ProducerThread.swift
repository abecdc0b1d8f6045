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

#if canImport(Glibc)
import Glibc
#endif

/// A plain POSIX thread running a closure: the stress run's producers must be threads of
/// their own, outside Conveyor's pool, so they submit from "foreign" threads.
struct ProducerThread {
    private let handle: pthread_t

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts a thread that runs `body`.
    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, producerThreadEntry, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        handle = thread
    }

    /// Waits for the thread to finish.
    func join() { pthread_join(handle, nil) }

    fileprivate static func run(_ context: UnsafeMutableRawPointer) {
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
    }
}

private func producerThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    ProducerThread.run(context!)
    return nil
}
