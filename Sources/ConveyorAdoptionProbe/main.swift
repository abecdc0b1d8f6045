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

// A program that links Conveyor's Swift module, run under the drop-in library by
// Scripts/drop-in.sh: the process must have one runtime, the program's. Its own code uses
// Conveyor's Swift API; libdispatch's names (found with dlsym, as code built against the
// toolchain's Dispatch binds them) and Swift concurrency's default executor go through
// the drop-in library. Prints a line per check; exits 0 when every one held.
//
// Usage: conveyor-adoption-probe one-runtime   (under the drop-in library: adopted)
//        conveyor-adoption-probe refused       (the library refused: two runtimes, bridged)
import CConveyor
import CConveyorMainThreadBridge
import Conveyor
import Glibc

nonisolated(unsafe) var failures = 0

func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok   \(what)" : "FAIL \(what)")
    if !condition { failures += 1 }
}

/// A libdispatch entry point by name, as the process binds it (the drop-in's when preloaded).
nonisolated func libdispatch<T>(_ name: String, as type: T.Type) -> T {
    guard let address = dlsym(nil /* RTLD_DEFAULT */, name) else {
        print("FAIL \(name) is not in the process"); exit(2)
    }
    return unsafeBitCast(address, to: type)
}

typealias Function = @convention(c) (UnsafeMutableRawPointer?) -> Void
nonisolated(unsafe) let getLabel = libdispatch("dispatch_queue_get_label", as: (@convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?).self)
nonisolated(unsafe) let queueCreate = libdispatch("dispatch_queue_create",
                              as: (@convention(c) (UnsafePointer<CChar>?, OpaquePointer?) -> OpaquePointer?).self)
nonisolated(unsafe) let asyncF = libdispatch("dispatch_async_f", as: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Function) -> Void).self)
nonisolated(unsafe) let mainQueueObject = OpaquePointer(libdispatch("_dispatch_main_q", as: UnsafeMutableRawPointer.self))

/// Whether the calling thread is a worker of this program's own pool (each copy of the
/// runtime has its own thread-local slot).
nonisolated func onProgramsPool() -> Bool { cnv_tls_get_context() != nil }

/// Waits for `body` to report, up to a generous deadline.
func expect(_ what: String, _ body: (@escaping @Sendable (Bool) -> Void) -> Void) {
    final class Box: @unchecked Sendable { var value = false }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    body { value in box.value = value; done.signal() }
    check(done.wait(timeout: .now() + 30) == .success && box.value, what)
}

func checkOneRuntime() -> Never {
    check(cnv_drop_in_adopted() == 1, "the drop-in library forwards to the program's runtime")
    check(cnv_libdispatch_main_queue_available() == 0, "the main-thread bridge does not find itself")
    check(cnv_main_executor_hooks_installed() == 1, "MainActor jobs reach the program's main queue")

    // libdispatch's names see the program's queues: the current queue of a block that
    // Conveyor's Swift API runs is that queue (DISPATCH_CURRENT_QUEUE_LABEL).
    let serial = DispatchQueue(label: "adoption-probe.serial")
    let label = serial.sync { getLabel(nil).map { String(cString: $0) } }
    check(label == "adoption-probe.serial", "the current queue's label in a Swift API block is that queue's (got \(label ?? "nil"))")
    // Work submitted through libdispatch's names runs on the program's pool.
    expect("dispatch_async_f to a queue made by dispatch_queue_create runs on the program's pool") { report in
        let queue = queueCreate("adoption-probe.c", nil)
        final class Context { let report: @Sendable (Bool) -> Void; init(_ r: @escaping @Sendable (Bool) -> Void) { report = r } }
        let context = Unmanaged.passRetained(Context(report)).toOpaque()
        asyncF(queue, context) { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            context.report(onProgramsPool())
        }
    }
    // Swift concurrency's default executor, which goes through libdispatch's names.
    expect("a task on the default executor runs on the program's pool") { report in
        Task.detached { report(onProgramsPool()) }
    }
    expect("a task group's children run on the program's pool") { report in
        Task.detached {
            let all = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 { group.addTask { onProgramsPool() } }
                return await group.reduce(true) { $0 && $1 }
            }
            report(all)
        }
    }
    expect("Task.sleep wakes (on the program's timers)") { report in
        Task.detached {
            try? await Task.sleep(nanoseconds: 2_000_000)
            report(onProgramsPool())
        }
    }

    // One main queue: the Swift API's blocks, libdispatch's name for it and MainActor jobs
    // run in the order they were submitted, on the main thread.
    final class Order: @unchecked Sendable { var steps: [String] = [] }   // main thread only
    let order = Order()
    let mainThread = pthread_self()
    DispatchQueue.main.async { order.steps.append("swift 1") }
    asyncF(mainQueueObject, Unmanaged.passUnretained(order).toOpaque()) { raw in
        Unmanaged<Order>.fromOpaque(raw!).takeUnretainedValue().steps.append("libdispatch name")
    }
    Task { @MainActor in order.steps.append("MainActor") }
    DispatchQueue.main.async {
        order.steps.append("swift 2")
        check(pthread_equal(pthread_self(), mainThread) != 0, "the main queue runs on the main thread")
        check(order.steps == ["swift 1", "libdispatch name", "MainActor", "swift 2"],
              "one main queue, in submission order (got \(order.steps))")
        exit(failures == 0 ? 0 : 1)
    }
    dispatchMain()
}

/// The library refused the program's runtime (a library made dispatch state on its own
/// runtime first): the process still works, with two runtimes joined on the main queue.
func checkRefused() -> Never {
    check(cnv_drop_in_adopted() == 0, "the drop-in library kept its own runtime")
    expect("the program's own work runs") { report in DispatchQueue.global().async { report(onProgramsPool()) } }
    expect("a task on the default executor runs on the library's runtime") { report in
        Task.detached { report(!onProgramsPool()) }
    }
    DispatchQueue.main.async {
        asyncF(mainQueueObject, nil) { _ in exit(failures == 0 ? 0 : 1) }
    }
    dispatchMain()
}

switch CommandLine.arguments.dropFirst().first {
case "one-runtime": checkOneRuntime()
case "refused": checkRefused()
default: print("usage: conveyor-adoption-probe one-runtime|refused"); exit(2)
}
