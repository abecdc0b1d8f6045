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

// A child program for the global-executor tests: installs Conveyor as Swift concurrency's
// global executor before the first task, as a program would, then checks tasks, task
// groups, sleeps, priorities, and tasks that block. Exits 0 when every check held; another
// status names the check that failed.
import Conveyor
import Glibc

guard ConveyorConcurrency.installGlobalExecutor(), ConveyorConcurrency.isGlobalExecutor else { exit(20) }

/// The calling thread's name, as the kernel has it.
nonisolated func threadName() -> String {
    guard let file = fopen("/proc/thread-self/comm", "r") else { return "?" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
    return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Names of the process's threads that libdispatch started (its root queues' threads).
nonisolated func libdispatchThreads() -> [String] {
    guard let directory = opendir("/proc/self/task") else { return ["?"] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let first = tid.first, first.isNumber, let file = fopen("/proc/self/task/\(tid)/comm", "r") else { continue }
        var buffer = [CChar](repeating: 0, count: 64)
        if fgets(&buffer, Int32(buffer.count), file) != nil {
            let name = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if name.contains("qos") || name.hasPrefix("com.apple") { names.append(name) }
        }
        fclose(file)
    }
    return names
}

/// Counts tasks that have started (thread-safe through a serial queue).
final class StartCount: @unchecked Sendable {
    private let queue = DispatchQueue(label: "probe.count")
    private var value = 0
    func increment() { queue.sync { value += 1 } }
    var current: Int { queue.sync { value } }
}

nonisolated func check(_ condition: Bool, _ status: Int32) {
    if !condition {
        print("check \(status) failed on thread \(threadName())")
        exit(status)
    }
}

nonisolated func runChecks() async {
    // Tasks run on Conveyor's workers.
    check(threadName() == "conveyor.worker", 1)

    // A task group of many children.
    let sum = await withTaskGroup(of: Int.self) { group in
        for i in 1...1000 { group.addTask { i } }
        return await group.reduce(0, +)
    }
    check(sum == 500_500, 2)

    // Sleeps end no earlier than asked, on a worker (delay and deadline forms).
    let clock = ContinuousClock()
    let start = clock.now
    try? await Task.sleep(for: .milliseconds(20))
    let slept = clock.now - start
    check(slept >= .milliseconds(20) && slept < .seconds(5), 3)
    check(threadName() == "conveyor.worker", 4)
    let deadline = clock.now + .milliseconds(10)
    try? await Task.sleep(until: deadline, clock: clock)
    check(clock.now >= deadline, 5)
    await Task.yield()

    // Sleeps use Conveyor's timers: Swift 6.3 asks the default executor for them, and
    // the platform's would start libdispatch's timer and worker threads.
    for _ in 0..<20 { try? await Task.sleep(for: .microseconds(50)) }
    try? await Task.sleep(for: .milliseconds(5), clock: SuspendingClock())
    check(libdispatchThreads().isEmpty, 8)

    // Priority picks the band.
    let onBackground = await Task.detached(priority: .background) { () -> Bool in
        dispatchPrecondition(condition: .onQueue(.global(qos: .background)))
        return true
    }.value
    check(onBackground, 6)

    // 64 tasks that block in a Conveyor wait until all have started: none is starved.
    let started = StartCount()
    let gate = DispatchSemaphore(value: 0)
    let blockers = (0..<64).map { _ in
        Task.detached {
            started.increment()
            gate.wait()
        }
    }
    let end = DispatchTime.now() + 30
    while started.current < 64 && DispatchTime.now() < end {
        try? await Task.sleep(for: .milliseconds(1))
    }
    check(started.current == 64, 7)
    for _ in 0..<64 { gate.signal() }
    for blocker in blockers { await blocker.value }
}

Task.detached {
    await runChecks()
    exit(0)
}
dispatchMain()
