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

/// Starts `path` with `arguments` (posix_spawn); returns its pid.
func spawn(_ path: String, _ arguments: [String] = []) -> pid_t {
    var pid: pid_t = 0
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let result = posix_spawn(&pid, path, nil, nil, argv, environ)
    precondition(result == 0, "posix_spawn \(path) failed: \(result)")
    return pid
}

/// The kinds of fds sources create, counted in /proc/self/fd (other fds are not counted:
/// tests of other suites open and close pipes and event loops concurrently).
func sourceDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    var target = [CChar](repeating: 0, count: 256)
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard name.first?.isNumber == true else { continue }
        let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
        guard length > 0 else { continue }
        let link = cString(Array(target[0..<length]))
        if link.contains("pidfd") || link.contains("inotify") || link.contains("signalfd") || link.contains("pressure") {
            count += 1
        }
    }
    return count
}

/// Runs `body` on a new detached thread.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(result == 0)
    pthread_detach(thread)
}

/// Makes a fresh temporary directory.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/conveyor-fs-XXXXXX".utf8CString)
    precondition(mkdtemp(&template) != nil)
    return cString(template)
}

/// Tests that create pidfds, inotify instances, signalfds or PSI triggers run one at a
/// time, so the fd-leak test can count them.
@Suite(.serialized) struct SourcesSystemTests {
    @Test func processSourceReportsAChildsExit() {
        let pid = spawn("/bin/sleep", ["0.2"])
        let source = DispatchSource.makeProcessSource(identifier: pid, eventMask: .exit, queue: DispatchQueue(label: "process"))
        let seen = Atomic<UInt>(0)
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            seen.store(source.data.rawValue, ordering: .relaxed)
            fired.signal()
        }
        #expect(source.handle == pid)
        #expect(source.mask == .exit)
        source.activate()
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(DispatchSource.ProcessEvent(rawValue: seen.load(ordering: .relaxed)) == .exit)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        source.cancel()
    }

    @Test func processSourceForAProcessThatIsGoneFiresAtOnce() {
        let pid = spawn("/bin/true")
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        let source = DispatchSource.makeProcessSource(identifier: pid, eventMask: .all, queue: DispatchQueue(label: "gone"))
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler { fired.signal() }
        source.activate()
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(source.data == .exit)
        source.cancel()
    }

    @Test func fileSystemSourceReportsWriteRenameAndDelete() throws {
        let directory = makeTemporaryDirectory()
        let path = directory + "/watched"
        let renamed = directory + "/renamed"
        let writer = open(path, O_CREAT | O_WRONLY, 0o644)
        try #require(writer >= 0)
        let watched = open(path, O_RDONLY)
        try #require(watched >= 0)
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: watched, eventMask: [.write, .extend, .rename, .delete, .attrib, .link], queue: DispatchQueue(label: "fs"))
        let seen = Atomic<UInt>(0)
        let fired = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        source.setEventHandler {
            seen.bitwiseOr(source.data.rawValue, ordering: .relaxed)
            fired.signal()
        }
        source.setCancelHandler {
            close(watched)
            closed.signal()
        }
        #expect(source.handle == watched)
        source.activate()

        func waitFor(_ event: DispatchSource.FileSystemEvent) -> Bool {
            let end = deadline()
            while !DispatchSource.FileSystemEvent(rawValue: seen.load(ordering: .relaxed)).contains(event) {
                if fired.wait(timeout: end) == .timedOut { return false }
            }
            return true
        }
        #expect(write(writer, "data", 4) == 4)
        #expect(waitFor([.write, .extend]))
        #expect(rename(path, renamed) == 0)
        #expect(waitFor(.rename))
        #expect(unlink(renamed) == 0)
        #expect(waitFor([.delete, .link]))
        source.cancel()
        #expect(closed.wait(timeout: deadline()) == .success)
        close(writer)
        rmdir(directory)
    }

    @Test func fileSystemSourceOnADirectorySeesNewEntries() throws {
        let directory = makeTemporaryDirectory()
        let watched = open(directory, O_RDONLY | O_DIRECTORY)
        try #require(watched >= 0)
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: watched, eventMask: .write, queue: DispatchQueue(label: "dir"))
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler { fired.signal() }
        source.setCancelHandler { close(watched) }
        source.activate()
        let file = open(directory + "/new", O_CREAT | O_WRONLY, 0o644)
        #expect(file >= 0)
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(source.data == .write)
        close(file)
        unlink(directory + "/new")
        source.cancel()
        rmdir(directory)
    }

    @Test func signalSourceSeesARaisedSignal() {
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "signal"))
        let count = Atomic<UInt>(0)
        let fired = DispatchSemaphore(value: 0)
        source.setEventHandler {
            count.add(source.data, ordering: .relaxed)
            fired.signal()
        }
        #expect(source.handle == UInt(SIGUSR1))
        source.activate()
        #expect(kill(getpid(), SIGUSR1) == 0)
        #expect(fired.wait(timeout: deadline()) == .success)
        // A signal raised on a thread that had it unblocked goes through the forwarder.
        let thread = DispatchSemaphore(value: 0)
        startThread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)   // it inherited the block from this thread
            raise(SIGUSR1)
            thread.signal()
        }
        #expect(thread.wait(timeout: deadline()) == .success)
        #expect(waitUntil { count.load(ordering: .relaxed) >= 2 })
        source.cancel()
    }

    @Test func memoryPressureSourceGetsTheLevelsItAsksFor() {
        let everything = DispatchSource.makeMemoryPressureSource(eventMask: .all, queue: DispatchQueue(label: "pressure"))
        let criticalOnly = DispatchSource.makeMemoryPressureSource(eventMask: .critical, queue: DispatchQueue(label: "critical"))
        let levels = TestLog<UInt>()
        let criticalFired = DispatchSemaphore(value: 0)
        let fired = DispatchSemaphore(value: 0)
        everything.setEventHandler {
            levels.append(everything.data.rawValue)
            fired.signal()
        }
        criticalOnly.setEventHandler { criticalFired.signal() }
        #expect(everything.mask == .all)
        everything.activate()
        criticalOnly.activate()
        MemoryPressureCenter.shared.report(.warning)
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(levels.values.first == DispatchSource.MemoryPressureEvent.warning.rawValue)
        // Without another trigger, pressure is declared normal after the recovery delay.
        #expect(fired.wait(timeout: deadline()) == .success)
        #expect(levels.values.last == DispatchSource.MemoryPressureEvent.normal.rawValue)
        #expect(criticalFired.wait(timeout: .now() + .milliseconds(20)) == .timedOut)
        MemoryPressureCenter.shared.report(.critical)
        #expect(criticalFired.wait(timeout: deadline()) == .success)
        everything.cancel()
        criticalOnly.cancel()
    }

    @Test func noDescriptorLeaksAfterCancel() throws {
        _ = EventLoop.shared
        let before = sourceDescriptorCount()
        let directory = makeTemporaryDirectory()
        let fileFD = open(directory, O_RDONLY | O_DIRECTORY)
        try #require(fileFD >= 0)
        let (readFD, writeFD) = makePipe()
        let child = spawn("/bin/sleep", ["10"])
        let cancelled = DispatchGroup()
        var sources: [any DispatchSourceProtocol] = [
            DispatchSource.makeProcessSource(identifier: child, eventMask: .exit),
            DispatchSource.makeFileSystemObjectSource(fileDescriptor: fileFD, eventMask: .all),
            DispatchSource.makeSignalSource(signal: SIGUSR2),
            DispatchSource.makeMemoryPressureSource(eventMask: .all),
            DispatchSource.makeReadSource(fileDescriptor: readFD),
            DispatchSource.makeWriteSource(fileDescriptor: writeFD),
            DispatchSource.makeTimerSource(),
        ]
        for source in sources {
            cancelled.enter()
            source.setCancelHandler { cancelled.leave() }
            source.activate()
        }
        #expect(sourceDescriptorCount() > before)
        for source in sources { source.cancel() }
        #expect(cancelled.wait(timeout: deadline()) == .success)
        sources.removeAll()
        #expect(sourceDescriptorCount() == before)
        kill(child, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
        close(fileFD)
        close(readFD)
        close(writeFD)
        rmdir(directory)
    }
}
