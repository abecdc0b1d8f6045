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
import CConveyorMainThreadBridge
#if canImport(Glibc)
import Glibc
#endif

/// The main thread's loop under `dispatchMain()` (or an `async` main): it sleeps in
/// `poll` on two descriptors and serves whichever is readable:
/// - Conveyor's main queue (its eventfd, signalled when a drain is scheduled);
/// - the toolchain's libdispatch main queue, where Foundation and libraries built on the
///   toolchain's Dispatch put main-thread work (drained as CoreFoundation's run loop does).
enum MainThreadLoop {
    static func serveForever() -> Never {
        let runner = MainQueueRunner.shared
        runner.servedByConveyor.store(true, ordering: .sequentiallyConsistent)
        let own = runner.hostDescriptor()
        let foreign = cnv_libdispatch_main_queue_descriptor()
        var descriptors = [pollfd(fd: own, events: Int16(POLLIN), revents: 0)]
        if foreign >= 0 { descriptors.append(pollfd(fd: foreign, events: Int16(POLLIN), revents: 0)) }
        while true {
            // Read each eventfd before looking for work: a signal that comes after the
            // read leaves the descriptor readable, so the next poll returns at once.
            _ = cnv_eventfd_drain(own)
            runner.drainIfScheduled()
            if foreign >= 0 {
                _ = cnv_eventfd_drain(foreign)
                cnv_libdispatch_main_queue_drain()
            }
            for index in descriptors.indices { descriptors[index].revents = 0 }
            // The main thread is no pool worker: its sleep needs no blocking hint (and must
            // not start the pool in a program that never uses it).
            _ = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), -1) }
        }
    }
}

/// The concurrency runtime hands each MainActor job to Conveyor (the hook installed by
/// CConveyorMainThreadBridge when the program loads): it goes onto the main queue, in FIFO
/// order with the queue's blocks, and runs on the main executor.
@_cdecl("cnv_main_executor_enqueue")
func mainExecutorEnqueue(_ job: UnsafeMutableRawPointer) {
    let job = unsafeBitCast(job, to: UnownedJob.self)
    MainQueueRunner.shared.queue.enqueue(ConcurrencyJob(job, context: .serial(MainActor.sharedUnownedExecutor)))
}

/// An `async` main ends its synchronous part here (through the runtime's hook): the main
/// thread serves Conveyor's loop, which runs MainActor jobs and both main queues.
@_cdecl("cnv_main_thread_serve_forever")
func mainThreadServeForever() {
    MainThreadLoop.serveForever()
}
