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

@_spi(ExperimentalCustomExecutors) import _Concurrency

/// Swift concurrency's main executor in a program that links Conveyor: each MainActor job
/// goes onto Conveyor's main queue, in one FIFO order with the queue's blocks, and runs on
/// the main thread however that thread serves the queue (`dispatchMain()`, an `async`
/// main, a run loop, a host loop through `mainQueueEventDescriptor`).
///
/// Installed while the program loads (`installMainExecutor`, called by the constructor in
/// CConveyorMainThreadBridge), before anything can use the main executor. Swift 6.3's
/// runtime asks `MainActor.executor` for every MainActor job; the platform's executor
/// there puts them on the toolchain libdispatch's main queue, a second queue that only met
/// Conveyor's on the main thread, out of order (a review found `main.async` blocks running
/// ahead of MainActor tasks submitted before them, and a host loop that never ran
/// MainActor work at all). The runtime's older route, the enqueue hook, is no longer
/// called for them.
final class MainQueueExecutor: MainExecutor, @unchecked Sendable {
    static let shared = MainQueueExecutor()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        MainQueueRunner.shared.queue.enqueue(ConcurrencyJob(unowned, context: .serial(asUnownedSerialExecutor())))
    }

    /// Serves the main queue on the main thread for the rest of the process (an `async`
    /// main ends here when the runtime starts its main executor).
    func run() throws {
        MainThreadLoop.serveForever()
    }

    /// The main queue is served until the process ends, as with the platform's executor.
    func stop() {
        fatalError("Conveyor: the main executor cannot be stopped (it serves the main queue until the process exits)")
    }

    /// Whether the calling code runs on the main queue: on the main thread, as with
    /// libdispatch's main queue (the same test as `dispatchPrecondition(.onQueue(.main))`).
    func isIsolatingCurrentContext() -> Bool? {
        isRunning(on: DispatchQueue.main, exclusively: true)
    }

    func checkIsolated() {
        ensure(isRunning(on: DispatchQueue.main, exclusively: true),
               "Conveyor: expected to run on the main actor (the main thread), but runs elsewhere")
    }
}

/// The executors installed while the program loads: Conveyor's main executor, and the
/// default executor the runtime has, unchanged (`installGlobalExecutor()` replaces it).
enum MainQueueExecutorFactory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { MainQueueExecutor.shared }
    static var defaultExecutor: any TaskExecutor { Task.defaultExecutor }
}

/// Makes `MainQueueExecutor` Swift concurrency's main executor (from the bridge's
/// constructor, before `main`; not in the drop-in library, whose main queue the
/// platform's executor already reaches through `dispatch_async_f`). Only over the
/// platform's own main executor: one another library installed first (from its own
/// constructor) stays, as do the runtime hooks another library set. Returns 1 when it
/// installed Conveyor's.
@_cdecl("cnv_main_executor_install")
func installMainExecutor() -> Int32 {
    // Reading the main executor makes the platform's executors if none were installed.
    guard String(reflecting: type(of: MainActor.executor)) == "Swift.DispatchMainExecutor" else { return 0 }
    _createExecutors(factory: MainQueueExecutorFactory.self)
    return 1
}
