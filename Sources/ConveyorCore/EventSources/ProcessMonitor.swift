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

/// Watches a process for a process source through a pidfd, which becomes readable when
/// the process exits (whether or not it is our child, before it is reaped). Only
/// `.exit` can be reported on Linux; a mask without it never fires. A process that does
/// not exist (ESRCH) is reported as exited at once. Any other failure (EMFILE, a kernel
/// before 5.3 without `pidfd_open`) leaves a source that never fires.
///
/// Fields are touched only by `install`/`uninstall`, which the source serializes.
final class ProcessMonitor: SourceMonitor, @unchecked Sendable {
    let pid: Int32
    let mask: DispatchSource.ProcessEvent
    var pidfd: Int32 = -1
    var registration: RegistrationID?

    init(pid: Int32, mask: DispatchSource.ProcessEvent) {
        self.pid = pid
        self.mask = mask
    }

    func install(for source: DispatchSource) {
        guard mask.contains(.exit) else { return }
        let exit = DispatchSource.ProcessEvent.exit.rawValue
        let fd = cnv_pidfd_open(pid)
        guard fd >= 0 else {
            if SystemCall.errno == ESRCH { source.merge(exit) }
            return
        }
        do {
            registration = try EventLoop.shared.register(fd: fd, events: [.input, .oneShot]) { [weak source] _ in
                source?.merge(exit)
            }
            pidfd = fd
        } catch {
            close(fd)
        }
    }

    func uninstall(for source: DispatchSource) {
        if let registration { EventLoop.shared.unregister(registration) }
        registration = nil
        if pidfd >= 0 { close(pidfd) }
        pidfd = -1
    }
}
