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

#if canImport(Glibc)
import Glibc
#endif

/// Writes that report a closed pipe as EPIPE instead of killing the process.
///
/// A write to a pipe or socket whose reader is gone raises SIGPIPE, whose default action
/// ends the process. libdispatch on Darwin sets F_SETNOSIGPIPE on the fd; Linux has no
/// such flag for pipes, and libdispatch on Linux does nothing, so the process dies unless
/// it ignores SIGPIPE. Here the writing thread blocks SIGPIPE around the call and, when
/// the call failed with EPIPE, takes the signal it raised (thread-directed, so pending on
/// this thread) with a zero-timeout `sigtimedwait` before unblocking.
enum IOWriter {
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        guarded { Glibc.write(fd, buffer, count) }
    }

    static func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int {
        guarded { Glibc.pwrite(fd, buffer, count, offset) }
    }

    private static func guarded(_ call: () -> Int) -> Int {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let result = call()
        let code = errno
        if result < 0 && code == EPIPE {
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeSignal, nil, &zero) == -1 && errno == EINTR {}
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        errno = code
        return result
    }
}
