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

// Issue 11, findings 6 and 7: what a signal source leaves of the program's own signal
// dispositions, and which signals the library's threads block.
#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Set by the program's own SIGUSR1 handler.
nonisolated(unsafe) var programHandlerRan: sig_atomic_t = 0

enum SignalScenarios {
    /// Finding 6: while a signal source for SIGUSR1 exists, the program's main thread
    /// raises SIGUSR1 three times (each waited for), then installs its own handler and
    /// cancels the source. Reports the events the source saw, whether the handler is still
    /// installed, whether the thread still blocks the signal, and whether a `raise` then
    /// runs the handler.
    static func handlerAfterCancel() {
        signal(SIGUSR1, SIG_IGN)   // as libdispatch's documentation asks of a signal source's user
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        let fired = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        source.setEventHandler { fired.signal() }
        source.setCancelHandler { cancelled.signal() }
        source.resume()
        usleep(100_000)   // libdispatch registers the source asynchronously
        var events = 0
        for _ in 0..<3 {
            raise(SIGUSR1)
            if fired.wait(timeout: .now() + .seconds(2)) == .success { events += 1 }
        }
        report("raise x3 while the source exists: events", Double(events), "of 3")
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in programHandlerRan = 1 }
        sigemptyset(&action.sa_mask)
        sigaction(SIGUSR1, &action, nil)
        source.cancel()
        cancelled.wait()
        usleep(100_000)   // a library may restore a disposition after the cancel handler ran
        var now = sigaction()
        sigaction(SIGUSR1, nil, &now)
        let handler = unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self)
        let programs = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        report("program's handler after cancel", handler == programs ? "kept" : handler == 0 ? "lost(SIG_DFL)" : "replaced")
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        report("SIGUSR1 still blocked in the raising thread", sigismember(&mask, SIGUSR1) == 1 ? "yes" : "no")
        guard handler == programs else { return }
        raise(SIGUSR1)   // runs the handler now, unless this thread still blocks the signal
        report("raise(SIGUSR1) after cancel", programHandlerRan == 1 ? "handler-ran" : "left-pending")
    }

    /// Finding 6, related: with SIGCHLD ignored (automatic reaping), a SIGCHLD source
    /// exists while a child exits. Reports whether the child was reaped automatically or
    /// left a zombie.
    static func sigchldReaping() {
        signal(SIGCHLD, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGCHLD, queue: .global())
        source.setEventHandler {}
        source.resume()
        usleep(50_000)
        let child = fork()
        if child == 0 { _exit(0) }
        usleep(200_000)
        let reaped = waitpid(child, nil, WNOHANG)
        let result = reaped == -1 && errno == ECHILD ? "reaped-automatically" : "zombie-left"
        source.cancel()
        report("SIGCHLD ignored, source exists", result)
    }

    /// Finding 7: the first work on a global queue starts the library's threads while the
    /// creating thread has `blockInt` SIGINT blocked. Reports whether a worker blocks
    /// SIGINT and SIGTERM.
    static func workerMask(creatorBlocksInt blockInt: Bool) {
        if blockInt {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            pthread_sigmask(SIG_BLOCK, &set, nil)
        }
        let masks = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var current = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &current)
            masks.store((sigismember(&current, SIGINT) == 1 ? 1 : 0) | (sigismember(&current, SIGTERM) == 1 ? 2 : 0), ordering: .relaxed)
            done.signal()
        }
        done.wait()
        let bits = masks.load(ordering: .relaxed)
        let prefix = blockInt ? "worker mask (creator blocked SIGINT)" : "worker mask (creator blocked nothing)"
        report(prefix, "INT:\(bits & 1 != 0 ? "blocked" : "open"),TERM:\(bits & 2 != 0 ? "blocked" : "open")")
    }
}
