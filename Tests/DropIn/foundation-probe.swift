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


// An unmodified Swift program built against the toolchain's Foundation: the parts of
// Foundation that stand on libdispatch, which Scripts/drop-in.sh runs on libdispatch and
// under the drop-in library. OperationQueue (a concurrent queue per operation queue),
// Process (a dispatch source for the child's exit) with Pipe and FileHandle's
// readabilityHandler (read sources), Timer and the main queue on RunLoop.main (the main
// queue's run-loop port), a run loop on a thread of its own, NotificationCenter with an
// operation queue, and URLSession (libcurl's sockets and timers on dispatch sources)
// against the local HTTP server whose port is the first argument. Checks what must hold
// on either library.
import Dispatch
import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

setvbuf(stdout, nil, _IOLBF, 0)
nonisolated(unsafe) var failures = 0
func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok  " : "FAIL", what)
    if !condition { failures += 1 }
}
let marker = dlsym(nil, "conveyor_drop_in").map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
print("running on", marker ?? "libdispatch")
// A hang is a failure: end the run after 120 s whatever happens.
Thread.detachNewThread { sleep(120); print("FAIL the probe hung"); exit(3) }

/// A value several threads touch, behind a lock.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func with<R>(_ body: (inout Value) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

/// Runs the main run loop until `done` holds or `seconds` pass.
func runMainLoop(seconds: Double, until done: () -> Bool) {
    let end = Date().addingTimeInterval(seconds)
    while !done() && Date() < end { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01)) }
}

// OperationQueue: at most maxConcurrentOperationCount at once, dependencies kept, waits.
do {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 3
    struct Counts { var running = 0, most = 0, finished: [Int] = [] }
    let counts = Shared(Counts())
    var operations: [Operation] = []
    for index in 0..<60 {
        let operation = BlockOperation {
            counts.with { $0.running += 1; $0.most = max($0.most, $0.running) }
            usleep(200)
            counts.with { $0.running -= 1; $0.finished.append(index) }
        }
        // Every tenth waits for the one before it.
        if index % 10 == 0, let previous = operations.last { operation.addDependency(previous) }
        operations.append(operation)
    }
    queue.addOperations(operations, waitUntilFinished: true)
    let seen = counts.with { $0 }
    let position = Dictionary(uniqueKeysWithValues: seen.finished.enumerated().map { ($1, $0) })
    let dependenciesKept = stride(from: 10, to: 60, by: 10).allSatisfy { position[$0]! > position[$0 - 1]! }
    check(seen.finished.count == 60 && seen.most <= 3 && dependenciesKept,
          "OperationQueue: 60 operations, at most 3 at once (saw \(seen.most)), dependencies kept")

    let cancelled = Shared(0)
    let held = OperationQueue()
    held.isSuspended = true
    let doomed = (0..<10).map { _ in BlockOperation { cancelled.with { $0 += 1 } } }
    held.addOperations(doomed, waitUntilFinished: false)
    held.cancelAllOperations()
    held.isSuspended = false
    held.waitUntilAllOperationsAreFinished()
    check(cancelled.with { $0 } == 0 && doomed.allSatisfy(\.isCancelled), "OperationQueue: cancelled operations never run")

    let underlying = DispatchQueue(label: "probe.underlying")
    let onUnderlying = OperationQueue()
    onUnderlying.underlyingQueue = underlying
    let key = DispatchSpecificKey<Int>()
    underlying.setSpecific(key: key, value: 7)
    let found = Shared<Int?>(nil)
    onUnderlying.addOperation { found.with { $0 = DispatchQueue.getSpecific(key: key) } }
    onUnderlying.waitUntilAllOperationsAreFinished()
    check(found.with { $0 } == 7, "OperationQueue.underlyingQueue: operations run on that queue")

    let mainRan = Shared(false)
    OperationQueue.main.addOperation { mainRan.with { $0 = Thread.isMainThread } }
    runMainLoop(seconds: 5) { mainRan.with { $0 } }
    check(mainRan.with { $0 }, "OperationQueue.main runs on the main thread under RunLoop.main")
}

// Process, Pipe and FileHandle's readabilityHandler.
do {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "for i in 1 2 3 4 5; do echo line$i; sleep 0.01; done"]
    let pipe = Pipe()
    process.standardOutput = pipe
    let text = Shared("")
    let sawEnd = DispatchSemaphore(value: 0)
    pipe.fileHandleForReading.readabilityHandler = { handle in
        let data = handle.availableData
        if data.isEmpty { handle.readabilityHandler = nil; sawEnd.signal(); return }
        text.with { $0 += String(decoding: data, as: UTF8.self) }
    }
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    do { try process.run() } catch { check(false, "Process.run: \(error)") }
    check(exited.wait(timeout: .now() + 20) == .success, "Process: terminationHandler runs")
    check(sawEnd.wait(timeout: .now() + 20) == .success, "FileHandle.readabilityHandler sees the end of the pipe")
    check(text.with { $0 } == "line1\nline2\nline3\nline4\nline5\n", "FileHandle.readabilityHandler: every line, in order")

    var clean = 0
    for index in 0..<20 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/echo")
        child.arguments = ["child \(index)"]
        let output = Pipe()
        child.standardOutput = output
        do { try child.run() } catch { break }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        if child.terminationStatus == 0 && String(decoding: printed, as: UTF8.self) == "child \(index)\n" { clean += 1 }
    }
    check(clean == 20, "Process: 20 children in a row, waited for and read (\(clean))")
}

// Timer and the main queue on RunLoop.main; a run loop on a thread of its own.
do {
    nonisolated(unsafe) var fires = 0
    nonisolated(unsafe) var posted = 0
    let timer = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: true) { timer in
        fires += 1
        if fires == 5 { timer.invalidate() }
    }
    for _ in 0..<10 { DispatchQueue.main.async { posted += 1 } }
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { posted += 100 }
    runMainLoop(seconds: 10) { fires >= 5 && posted >= 110 }
    check(fires == 5 && posted == 110 && !timer.isValid,
          "Timer on RunLoop.main (\(fires) of 5 fires) with main-queue async and asyncAfter (\(posted) of 110)")

    let ticked = DispatchSemaphore(value: 0)
    let thread = Thread {
        nonisolated(unsafe) var count = 0
        let timer = Timer(timeInterval: 0.005, repeats: true) { timer in
            count += 1
            if count == 3 { timer.invalidate(); ticked.signal() }
        }
        RunLoop.current.add(timer, forMode: .default)
        RunLoop.current.run(until: Date().addingTimeInterval(10))
    }
    thread.start()
    check(ticked.wait(timeout: .now() + 20) == .success, "Timer on a thread's own RunLoop")
}

// NotificationCenter delivering on an operation queue.
do {
    let name = Notification.Name("probe.notification")
    let delivered = DispatchSemaphore(value: 0)
    // The center does not keep the queue alive: the observer's owner does.
    let queue = OperationQueue()
    let observer = NotificationCenter.default.addObserver(forName: name, object: nil, queue: queue) { _ in
        check(OperationQueue.current === queue, "NotificationCenter: the observer runs on its operation queue")
        delivered.signal()
    }
    NotificationCenter.default.post(name: name, object: nil)
    check(delivered.wait(timeout: .now() + 20) == .success, "NotificationCenter: an observer on an OperationQueue")
    NotificationCenter.default.removeObserver(observer)
    withExtendedLifetime(queue) {}
}

// URLSession against the local server.
if CommandLine.arguments.count > 1, let port = Int(CommandLine.arguments[1]) {
    let url = URL(string: "http://127.0.0.1:\(port)/foundation-probe.swift")!
    let ownSize = (try? Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[2])))?.count ?? -1
    let one = DispatchSemaphore(value: 0)
    let got = Shared((status: 0, bytes: 0))
    URLSession.shared.dataTask(with: url) { data, response, _ in
        got.with { $0 = ((response as? HTTPURLResponse)?.statusCode ?? -1, data?.count ?? -1) }
        one.signal()
    }.resume()
    let first = one.wait(timeout: .now() + 30) == .success ? got.with { $0 } : (status: 0, bytes: 0)
    check(first.status == 200 && first.bytes == ownSize, "URLSession dataTask (status \(first.status), \(first.bytes) of \(ownSize) bytes)")

    let group = DispatchGroup()
    let ok = Shared(0)
    for _ in 0..<40 {
        group.enter()
        URLSession.shared.dataTask(with: url) { data, response, _ in
            if (response as? HTTPURLResponse)?.statusCode == 200 && data?.count == ownSize { ok.with { $0 += 1 } }
            group.leave()
        }.resume()
    }
    check(group.wait(timeout: .now() + 60) == .success && ok.with { $0 } == 40, "URLSession: 40 tasks at once (\(ok.with { $0 }) complete)")

    let fetched = DispatchSemaphore(value: 0)
    let asyncStatus = Shared(0)
    Task {
        do {
            let (data, response) = try await URLSession.shared.data(from: url)
            asyncStatus.with { $0 = data.count == ownSize ? (response as? HTTPURLResponse)?.statusCode ?? -1 : -3 }
        } catch {
            asyncStatus.with { $0 = -2 }
        }
        fetched.signal()
    }
    check(fetched.wait(timeout: .now() + 30) == .success && asyncStatus.with { $0 } == 200,
          "URLSession: async data(from:) (\(asyncStatus.with { $0 }))")

    let downloaded = DispatchSemaphore(value: 0)
    let file = Shared(false)
    URLSession.shared.downloadTask(with: url) { location, _, _ in
        if let location, let data = try? Data(contentsOf: location) { file.with { $0 = data.count == ownSize } }
        downloaded.signal()
    }.resume()
    check(downloaded.wait(timeout: .now() + 30) == .success && file.with { $0 }, "URLSession: downloadTask to a file")

    let refused = DispatchSemaphore(value: 0)
    let failedAsExpected = Shared(false)
    // Port 1 on the loopback: nothing listens there, so the connection is refused.
    URLSession.shared.dataTask(with: URL(string: "http://127.0.0.1:1/")!) { _, _, error in
        failedAsExpected.with { $0 = error != nil }
        refused.signal()
    }.resume()
    check(refused.wait(timeout: .now() + 30) == .success && failedAsExpected.with { $0 }, "URLSession: a refused connection completes with an error")
} else {
    print("info URLSession skipped: no server port given")
}

print(failures == 0 ? "foundation probe: all passed" : "foundation probe: \(failures) FAILED")
exit(failures == 0 ? 0 : 1)
