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

/// Watches a file descriptor for a read or write source: a one-shot epoll registration
/// on the event thread, re-armed after each event handler, so a source is told again
/// while the fd stays ready (level-triggered, as on Darwin) but the event thread never
/// spins while a handler is pending.
///
/// `data`: for reading, the bytes available (`FIONREAD`; 1 when the fd cannot tell, as
/// for a listening socket); for writing, the room left (a pipe's capacity minus what it
/// holds, a socket's send buffer minus unsent bytes; 1 when the fd cannot tell). At a
/// hang-up or error with nothing left to read the source is told 0 once and stops
/// watching, as libdispatch does on Linux (end of file: cancel the source). A write
/// source whose peer is gone (a pipe's reader closed: `EPOLLERR`) is told 0 once too and
/// stops watching; libdispatch on Linux, level-triggered, fires it again after every
/// handler with data 1 until it is cancelled (11,640 times in 200 ms for a handler that
/// does not cancel), which Conveyor does not copy.
///
/// epoll cannot watch regular files, directories or some devices (`EPERM`): like
/// kqueue on Darwin, such an fd is taken as always ready — the source fires again after
/// every handler, with the bytes left to the end of the file for reading. Any other
/// registration error (a closed fd, `EBADF`; a number epoll refuses, `EINVAL`) leaves a
/// source that never fires and cancels normally, as libdispatch's does on Linux (its
/// failed registration leaves the source unarmed): a server whose source races a close
/// must not die of it. `registrationError` keeps the errno for diagnostics.
final class DescriptorMonitor: SourceMonitor, @unchecked Sendable {
    let fd: Int32
    let isWrite: Bool
    // Guarded by the source's lock.
    var registration: RegistrationID?
    var isAlwaysReady = false
    /// Hung up: told 0 and no longer watched.
    var isFinished = false
    /// The errno of a registration that failed (the source never fires), else 0.
    var registrationError: Int32 = 0

    init(fd: Int32, isWrite: Bool) {
        self.fd = fd
        self.isWrite = isWrite
    }

    private var interest: EpollEvents { isWrite ? [.output, .oneShot] : [.input, .readHangUp, .oneShot] }

    func install(for source: DispatchSource) {
        do {
            let id = try EventLoop.shared.register(fd: fd, events: interest) { [weak source, self] events in
                guard let source else { return }
                self.ready(source, events)
            }
            source.lock.withLock { registration = id }
        } catch let error where error.errno == EPERM {
            source.lock.withLock { isAlwaysReady = true }
            source.merge(alwaysReadyEstimate())
        } catch {
            // Bad input from outside the program, never a trap (DESIGN.md "Misuse"): the
            // descriptor was closed, perhaps by another thread racing this source.
            source.lock.withLock { registrationError = error.errno }
        }
    }

    func uninstall(for source: DispatchSource) {
        let id = source.lock.withLock {
            defer { registration = nil }
            return registration
        }
        if let id { EventLoop.shared.unregister(id) }
    }

    func eventHandlerDidRun(for source: DispatchSource) {
        let (id, alwaysReady, finished) = source.lock.withLock { (registration, isAlwaysReady, isFinished) }
        if alwaysReady {
            source.merge(alwaysReadyEstimate())
        } else if let id, !finished {
            _ = try? EventLoop.shared.modify(id, events: interest)
        }
    }

    /// On the event thread: what the fd is ready for, turned into `data`.
    private func ready(_ source: DispatchSource, _ events: EpollEvents) {
        let broken = !events.isDisjoint(with: [.error, .hangUp])
        var value: UInt
        var finished = false
        if isWrite {
            if broken {
                value = 0
                finished = true
            } else {
                value = UInt(max(cnv_writable_bytes(fd), 1))
            }
        } else {
            let available = cnv_readable_bytes(fd)
            let ended = broken || events.contains(.readHangUp)
            if available > 0 {
                value = UInt(available)
            } else if available == 0 || !events.contains(.input) {
                value = 0
                finished = ended
            } else {
                value = 1
            }
        }
        source.lock.lock()
        if finished { isFinished = true }
        source.accumulateLocked(value)
        source.scheduleDeliveryLocked()
        source.lock.unlock()
    }

    /// `data` for an fd epoll cannot watch: bytes to the end of the file for reading, 1
    /// otherwise.
    private func alwaysReadyEstimate() -> UInt {
        if isWrite { return 1 }
        let remaining = cnv_file_remaining(fd)
        return remaining < 0 ? 1 : UInt(remaining)
    }
}
