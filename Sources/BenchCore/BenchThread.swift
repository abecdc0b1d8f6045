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

/// A plain POSIX thread, for workloads that need "another thread" that belongs to neither
/// dispatch library (semaphore ping-pong, readers and writers from two threads).
public final class BenchThread: @unchecked Sendable {
    // Written once by `init` before any other thread can see the object; `join` runs once.
    private var handle = pthread_t()
    private var joined = false

    /// Starts a thread running `body`. Traps if the system cannot create one.
    public init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let rc = pthread_create(&handle, nil, benchThreadEntry, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the thread to finish.
    public func join() {
        precondition(!joined, "BenchThread joined twice")
        joined = true
        let rc = pthread_join(handle, nil)
        precondition(rc == 0, "pthread_join failed: \(rc)")
    }
}

/// Carries a thread's closure across `pthread_create`.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

private func benchThreadEntry(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue().run()
    return nil
}
