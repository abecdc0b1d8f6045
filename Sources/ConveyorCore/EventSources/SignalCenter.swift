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
#if canImport(Glibc)
import Glibc
#endif

/// Watches signals for signal sources: one signalfd, in the event loop, whose mask holds
/// every signal that has a source; each read signal adds 1 to the `data` of every source
/// of that signal.
///
/// A signalfd only sees a signal that no thread takes the ordinary way, so the signal
/// must be blocked everywhere — but `pthread_sigmask` changes one thread, and the threads
/// already running (the pool's workers, the Swift concurrency threads, the program's
/// own) keep their masks. What Conveyor does, for the first source of a signal:
/// 1. blocks it in the event thread, which reads the signalfd;
/// 2. installs a small forwarding handler. A program thread that has the signal unblocked
///    takes it through that handler, which sends it on to the event thread
///    (`pthread_kill`), where it stays pending for the signalfd, and then calls the
///    handler the program had installed before, if any (on Darwin both a source and the
///    handler see a signal; libdispatch on Linux replaces the handler instead). The
///    thread's mask is left alone, as libdispatch's forwarder leaves it: no program
///    thread blocks the signal because a source existed, so once the source is cancelled
///    the program's own handler runs everywhere again.
/// While it does this, the calling thread blocks the signal for a moment (and unblocks it
/// after, unless it had it blocked already): a signal sent meanwhile waits, then goes
/// through the forwarder, instead of meeting the default action.
/// So a signal sent to the process (`kill(getpid(), …)`) or to a thread that still has it
/// unblocked (`raise`) is always seen, and never runs the default action (which would
/// end the process for SIGUSR1) while a source exists. Not seen: a signal sent to one
/// thread (`pthread_kill`, `raise`) that already blocks it — it stays pending on that
/// thread. Standard signals that arrive while one is pending are merged by the kernel
/// (count 1). SIGKILL and SIGSTOP cannot be caught; their sources never fire.
///
/// Conveyor's own threads (workers, the event thread, the watchdog) block every
/// asynchronous signal from their start (`cnv_thread_start`), so only the program's
/// threads ever take one the ordinary way.
///
/// When the last source of a signal goes, it leaves the signalfd's mask and the previous
/// disposition is put back — only if the forwarder is still installed: a handler the
/// program installed while the source existed stays. A SIGCHLD forwarder that replaced
/// SIG_IGN keeps the kernel reaping children (SA_NOCLDWAIT). The threads keep the signal
/// blocked (as libdispatch leaves them).
/// When no signal has a source, the signalfd is closed.
final class SignalCenter: @unchecked Sendable {
    static let shared = SignalCenter()

    private struct Watcher {
        let signal: Int32
        weak var source: DispatchSource?
    }

    private let lock = FutexLock()
    // Guarded by `lock`.
    private var watchers: [UInt64: Watcher] = [:]
    private var nextToken: UInt64 = 1
    private var fd: Int32 = -1
    private var registration: RegistrationID?
    /// Signals the event thread has blocked (it keeps them blocked).
    private var blockedOnEventThread: Set<Int32> = []

    /// Starts counting `signal` for `source`; returns a token for `remove`.
    func add(signal: Int32, source: DispatchSource) -> UInt64 {
        // Until the forwarder is in place a signal for this thread must wait, not meet
        // the default action (which ends the process for SIGUSR1, SIGINT, …).
        let wasBlocked = cnv_block_signal_noting(signal) != 0
        defer { if !wasBlocked { _ = cnv_unblock_signal(signal) } }
        let known = lock.withLock { blockedOnEventThread.contains(signal) }
        if !known {
            // Not under `lock`: the event thread may be waiting for it in `signalsArrived`.
            EventLoop.shared.runOnEventThread {
                _ = cnv_block_signal(signal)
                cnv_signal_set_reader()
            }
        }
        lock.lock()
        blockedOnEventThread.insert(signal)
        let isNewSignal = !watchers.values.contains { $0.signal == signal }
        let token = nextToken
        nextToken += 1
        watchers[token] = Watcher(signal: signal, source: source)
        if isNewSignal {
            updateMaskLocked()
            _ = cnv_signal_forward_install(signal)   // fails only for SIGKILL and SIGSTOP
        }
        lock.unlock()
        return token
    }

    /// Stops counting for the watcher `token`. When it returns, no signal is merged into
    /// its source any more (merges after `cancel()` are ignored by the source anyway).
    func remove(_ token: UInt64) {
        lock.lock()
        guard let watcher = watchers.removeValue(forKey: token) else {
            lock.unlock()
            return
        }
        var retired: (RegistrationID?, Int32)?
        if !watchers.values.contains(where: { $0.signal == watcher.signal }) {
            _ = cnv_signal_forward_restore(watcher.signal)
            if watchers.isEmpty {
                retired = (registration, fd)
                registration = nil
                fd = -1
            } else {
                updateMaskLocked()
            }
        }
        lock.unlock()
        if let (id, oldFD) = retired {
            if let id { EventLoop.shared.unregister(id) }
            if oldFD >= 0 { close(oldFD) }
        }
    }

    /// Points the signalfd at the signals that have watchers, creating it (and its
    /// event-loop registration) the first time. Lock held.
    private func updateMaskLocked() {
        let signals = Array(Set(watchers.values.map(\.signal))).sorted()
        let result = signals.withUnsafeBufferPointer { cnv_signalfd_set(fd, $0.baseAddress, Int32($0.count)) }
        SystemCall.check(result, "signalfd")
        guard fd < 0 else { return }
        fd = result
        let readFD = result
        registration = try? EventLoop.shared.register(fd: readFD, events: [.input]) { [self] _ in
            signalsArrived(on: readFD)
        }
    }

    /// On the event thread: read every queued signal, then merge the counts.
    private func signalsArrived(on readFD: Int32) {
        var counts: [Int32: UInt] = [:]
        var buffer = [Int32](repeating: 0, count: 16)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { cnv_signalfd_read(readFD, $0.baseAddress, 16) }
            if count <= 0 { break }
            for index in 0..<Int(count) { counts[buffer[index], default: 0] += 1 }
        }
        guard !counts.isEmpty else { return }
        var deliveries: [(DispatchSource, UInt)] = []
        lock.lock()
        for watcher in watchers.values {
            if let count = counts[watcher.signal], let source = watcher.source { deliveries.append((source, count)) }
        }
        lock.unlock()
        for (source, count) in deliveries { source.merge(count) }
    }
}

/// A signal source's share of the `SignalCenter`.
final class SignalMonitor: SourceMonitor, @unchecked Sendable {
    let signal: Int32
    /// Touched only by `install`/`uninstall`, which the source serializes.
    var token: UInt64?

    init(signal: Int32) {
        self.signal = signal
    }

    func install(for source: DispatchSource) {
        token = SignalCenter.shared.add(signal: signal, source: source)
    }

    func uninstall(for source: DispatchSource) {
        if let token { SignalCenter.shared.remove(token) }
        token = nil
    }
}
