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
@testable import ConveyorCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The signals blocked by a thread, as the kernel reports them (SigBlk in /proc).
private func blockedSignals(ofThread tid: String) -> UInt64? {
    guard let file = fopen("/proc/self/task/\(tid)/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = cText(line)
        if text.hasPrefix("SigBlk:") {
            return UInt64(text.dropFirst(7).trimmingCharacters(in: " \t\n"), radix: 16)
        }
    }
    return nil
}

/// The text of a NUL-terminated C buffer.
private func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

/// What the kernel shows for `cnv_runtime_signal_mask` (glibc keeps its two internal
/// signals, 32 and 33, unblocked; SIGKILL and SIGSTOP cannot be blocked).
private func expectedRuntimeMask() -> UInt64 {
    var set = sigset_t()
    cnv_runtime_signal_mask(&set)
    var bits: UInt64 = 0
    for signal in Int32(1)...64 where sigismember(&set, signal) == 1
        && ![SIGKILL, SIGSTOP, 32, 33].contains(signal) {
        bits |= 1 << UInt64(signal - 1)
    }
    return bits
}

/// Threads of this process whose name starts with one of `prefixes`, with their SigBlk.
private func runtimeThreadMasks(prefixes: [String]) -> [(String, UInt64)] {
    processThreads().compactMap { thread in
        guard prefixes.contains(where: { thread.name.hasPrefix($0) }),
              let mask = blockedSignals(ofThread: String(thread.id)) else { return nil }
        return (thread.name, mask)
    }
}

/// Conveyor's own threads block the asynchronous signals whatever their creator blocked
/// (issue 11, finding 7), and a signal source leaves the program's own dispositions alone
/// (finding 6).
@Suite struct SignalIsolationTests {
    /// libdispatch's workers show SigBlk fffffffe3bfbea27 on this machine (all but SIGILL,
    /// SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGPIPE, SIGPROF, SIGSYS and glibc's own).
    @Test func runtimeMaskMatchesLibdispatch() {
        #expect(String(expectedRuntimeMask(), radix: 16) == "fffffffe3bfbea27")
    }

    /// A thread started while its creator blocked SIGINT and one started while its creator
    /// blocked nothing get the same mask.
    @Test func startedThreadsDoNotInheritTheCreatorsMask() {
        final class Seen: @unchecked Sendable {
            let masks = TestLog<UInt64>()
            let done = DispatchSemaphore(value: 0)
        }
        let seen = Seen()
        for blockSIGINT in [true, false] {
            startThread {
                var set = sigset_t()
                sigemptyset(&set)
                if blockSIGINT { sigaddset(&set, SIGINT) }
                pthread_sigmask(SIG_SETMASK, &set, nil)
                let argument = Unmanaged.passRetained(seen).toOpaque()
                let started = cnv_thread_start({ argument in
                    let seen = Unmanaged<Seen>.fromOpaque(argument!).takeRetainedValue()
                    seen.masks.append(blockedSignals(ofThread: String(ThreadInfo.currentID)) ?? 0)
                    seen.done.signal()
                    return nil
                }, argument, 0)
                precondition(started == 0)
            }
            #expect(seen.done.wait(timeout: deadline()) == .success)
        }
        #expect(seen.masks.values == [expectedRuntimeMask(), expectedRuntimeMask()])
    }

    /// The pool's workers and the event thread, started from whatever thread, all block
    /// exactly the runtime mask.
    @Test func workersAndTheEventThreadBlockTheAsynchronousSignals() {
        _ = EventLoop.shared
        let group = DispatchGroup()
        for _ in 0..<4 { DispatchQueue.global().async(group: group) { usleep(20_000) } }
        #expect(group.wait(timeout: deadline()) == .success)
        let masks = runtimeThreadMasks(prefixes: ["conveyor", "com.apple"])
        #expect(!masks.isEmpty)
        for (name, mask) in masks {
            #expect(mask & expectedRuntimeMask() == expectedRuntimeMask(), "\(name): SigBlk \(String(mask, radix: 16))")
        }
    }

    /// A handler the program installs while a signal source exists survives the source's
    /// cancellation (it used to be replaced by SIG_DFL, so the next SIGUSR1 killed the
    /// process), and runs: neither creating the source nor a signal it received may leave
    /// SIGUSR1 blocked in this thread (both did, so a later `raise` stayed pending and the
    /// handler never ran; libdispatch's forwarder leaves the mask alone).
    @Test func cancellingASourceKeepsTheProgramsHandler() async {
        await #expect(processExitsWith: .success) {
            exit(onThreadWithSignalUnblocked(SIGUSR1) {
                let source = WatchedSignalSource(SIGUSR1)
                raise(SIGUSR1)
                guard source.fired() else { return 2 }
                signal(SIGUSR1) { _ in programHandlerRuns.add(1, ordering: .relaxed) }
                guard source.cancelled() else { return 3 }
                raise(SIGUSR1)   // SIG_DFL would end the process here; a blocked signal stays pending
                return programHandlerRuns.load(ordering: .relaxed) == 1 ? 0 : 4
            })
        }
    }

    /// Creating a signal source leaves the creating thread's mask alone, and every signal
    /// that thread raises reaches the source (through the forwarder, which used to block
    /// it in the thread for good after the first: the second was lost).
    @Test func signalsRaisedByTheCreatingThreadAllReachTheSource() async {
        await #expect(processExitsWith: .success) {
            exit(onThreadWithSignalUnblocked(SIGUSR2) {
                func blocksUSR2() -> Bool {
                    var current = sigset_t()
                    pthread_sigmask(SIG_BLOCK, nil, &current)
                    return sigismember(&current, SIGUSR2) == 1
                }
                let source = WatchedSignalSource(SIGUSR2)
                guard !blocksUSR2() else { return 3 }
                for _ in 0..<3 {
                    raise(SIGUSR2)
                    guard source.fired() else { return 4 }
                }
                return blocksUSR2() ? 5 : 0
            })
        }
    }

    /// A handler the program installed before creating a source keeps running while the
    /// source exists (the source sees the signal too, as on Darwin), and is the one in
    /// place after the cancel.
    @Test func aHandlerInstalledBeforeTheSourceStillRuns() async {
        await #expect(processExitsWith: .success) {
            exit(onThreadWithSignalUnblocked(SIGUSR1) {
                signal(SIGUSR1) { _ in programHandlerRuns.add(1, ordering: .relaxed) }
                let source = WatchedSignalSource(SIGUSR1)
                raise(SIGUSR1)
                guard source.fired() else { return 2 }
                guard programHandlerRuns.load(ordering: .relaxed) == 1 else { return 3 }
                guard source.cancelled() else { return 4 }
                raise(SIGUSR1)
                return programHandlerRuns.load(ordering: .relaxed) == 2 ? 0 : 5
            })
        }
    }

    /// A signal the program left at its default action ends the process once its last
    /// source is cancelled, as before the source existed (README "What is different":
    /// libdispatch's handler stays and swallows it for the rest of the run).
    @Test func theDefaultActionIsBackAfterTheLastCancel() async {
        await #expect(processExitsWith: .signal(SIGUSR2)) {
            exit(onThreadWithSignalUnblocked(SIGUSR2) {
                let first = WatchedSignalSource(SIGUSR2)
                let second = WatchedSignalSource(SIGUSR2)
                raise(SIGUSR2)
                guard first.fired(), second.fired() else { return 2 }
                guard first.cancelled() else { return 3 }
                raise(SIGUSR2)   // the second source still watches: the process lives
                guard second.fired() else { return 4 }
                guard second.cancelled() else { return 5 }
                raise(SIGUSR2)   // ends the process
                return 6
            })
        }
    }

    /// A source suspended before its activation counts the signals sent from `activate()`
    /// on and delivers them at its resume (libdispatch starts watching only at the resume,
    /// README "What is different"); its registration handler comes first.
    @Test func aSourceSuspendedBeforeActivationCountsFromActivate() async {
        await #expect(processExitsWith: .success) {
            signal(SIGUSR1, SIG_IGN)
            let queue = DispatchQueue(label: "suspended-signal")
            let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: queue)
            let handled = DispatchSemaphore(value: 0)
            let order = Mutex<[String]>([])
            source.setRegistrationHandler { order.withLock { $0.append("registered") } }
            source.setEventHandler { order.withLock { $0.append("event \(source.data)") }; handled.signal() }
            source.suspend()
            source.activate()
            kill(getpid(), SIGUSR1)
            // Nothing is delivered while the source is suspended.
            guard handled.wait(timeout: .now() + 0.2) == .timedOut else { exit(2) }
            source.resume()
            guard handled.wait(timeout: .now() + 30) == .success else { exit(3) }
            exit(order.withLock { $0 } == ["registered", "event 1"] ? 0 : 4)
        }
    }

    /// SIGCHLD ignored by the program: a source still sees it, children are still reaped by
    /// the kernel while the source exists, and SIG_IGN is back after the cancel.
    @Test func sigchldSourceKeepsAutomaticReaping() async {
        await #expect(processExitsWith: .success) {
            signal(SIGCHLD, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGCHLD, queue: DispatchQueue(label: "chld"))
            let fired = DispatchSemaphore(value: 0)
            let cancelled = DispatchSemaphore(value: 0)
            source.setEventHandler { fired.signal() }
            source.setCancelHandler { cancelled.signal() }
            source.activate()
            let child = spawn("/bin/true")
            guard fired.wait(timeout: .now() + 30) == .success else { exit(3) }
            // Reaped by the kernel: nothing is left to wait for.
            var status: Int32 = 0
            let waited = waitpid(child, &status, 0)
            guard waited == -1 && errno == ECHILD else { exit(4) }
            source.cancel()
            guard cancelled.wait(timeout: .now() + 30) == .success else { exit(5) }
            var current = sigaction()
            sigaction(SIGCHLD, nil, &current)
            let ignored = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            exit(ignored ? 0 : 6)
        }
    }
}

/// Counted by the program's own SIGUSR1 handler in the child process.
let programHandlerRuns = Atomic<Int>(0)

/// Runs `body` on a new thread of the program's own that has `signal` unblocked (as a
/// program's main thread has; the exit test's own thread may be one of the toolchain's
/// Dispatch workers, which block it) and returns its result.
private func onThreadWithSignalUnblocked(_ signal: Int32, _ body: @escaping @Sendable () -> Int32) -> Int32 {
    let result = Atomic<Int32>(-1)
    let done = DispatchSemaphore(value: 0)
    startThread {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        result.store(body(), ordering: .releasing)
        done.signal()
    }
    guard done.wait(timeout: .now() + 60) == .success else { return 9 }
    return result.load(ordering: .acquiring)
}

/// An activated signal source whose events and cancellation a test can wait for.
private struct WatchedSignalSource {
    private let source: any DispatchSourceSignal
    private let events = DispatchSemaphore(value: 0)
    private let cancellation = DispatchSemaphore(value: 0)

    init(_ signal: Int32) {
        source = DispatchSource.makeSignalSource(signal: signal, queue: DispatchQueue(label: "signal-\(signal)"))
        source.setEventHandler { [events] in events.signal() }
        source.setCancelHandler { [cancellation] in cancellation.signal() }
        source.activate()
    }

    /// Waits (up to 30 s) for the next event handler run.
    func fired() -> Bool { events.wait(timeout: .now() + 30) == .success }

    /// Cancels the source and waits (up to 30 s) for its cancel handler.
    func cancelled() -> Bool {
        source.cancel()
        return cancellation.wait(timeout: .now() + 30) == .success
    }
}
