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

/// A source that reports events of another process — on Linux, only its exit. Its
/// `handle` is the process id; `data` holds the events since the handler last ran.
///
/// Linux: a pidfd (`pidfd_open`, Linux 5.3+) becomes readable when the process exits,
/// whether or not it is a child and before it is reaped. `fork`, `exec` and `signal`
/// would need the netlink process connector (CAP_NET_ADMIN) or ptrace and are not
/// reported. A process that is already gone (ESRCH) is reported as exited at once,
/// as libdispatch does on Darwin.
public protocol DispatchSourceProcess: DispatchSourceProtocol {
    /// The process id watched.
    var handle: pid_t { get }
    /// The events since the handler last ran.
    var data: DispatchSource.ProcessEvent { get }
    /// The events the source watches for.
    var mask: DispatchSource.ProcessEvent { get }
}

extension DispatchSourceProcess {
    /// The process id watched.
    public var handle: pid_t { pid_t(truncatingIfNeeded: concreteSource.handleValue) }
    /// The events since the handler last ran.
    public var data: DispatchSource.ProcessEvent {
        DispatchSource.ProcessEvent(rawValue: concreteSource.deliveredData.load(ordering: .acquiring))
    }
    /// The events the source watches for.
    public var mask: DispatchSource.ProcessEvent { DispatchSource.ProcessEvent(rawValue: concreteSource.maskValue) }
}

/// A source that reports changes to an open file or directory. Its `handle` is the fd;
/// `data` holds the events since the handler last ran.
///
/// Linux: one shared inotify instance watches the inode of the fd (through
/// `/proc/self/fd/N`, so a renamed or unlinked file stays watched). The mapping:
/// - `write`: `IN_MODIFY`; for a directory, an entry created, deleted or moved in or out.
/// - `extend`: `IN_MODIFY` after which the size (fstat) is larger than before.
/// - `attrib`: `IN_ATTRIB` that did not change the link count.
/// - `link`: `IN_ATTRIB` with a changed link count; for a directory, a subdirectory
///   created, deleted or moved.
/// - `delete`: the link count fell to 0 (unlink of the last name; the open fd keeps the
///   inode alive, so `IN_DELETE_SELF` would only come when it is closed), or `IN_DELETE_SELF`.
/// - `rename`: `IN_MOVE_SELF`.
/// - `revoke`: `IN_UNMOUNT` (the file system went away).
/// - `funlock`: not available; never reported.
/// If the watch cannot be added (a bad fd, the inotify watch limit), the source never fires.
public protocol DispatchSourceFileSystemObject: DispatchSourceProtocol {
    /// The file descriptor watched.
    var handle: Int32 { get }
    /// The events since the handler last ran.
    var data: DispatchSource.FileSystemEvent { get }
    /// The events the source watches for.
    var mask: DispatchSource.FileSystemEvent { get }
}

extension DispatchSourceFileSystemObject {
    /// The file descriptor watched.
    public var handle: Int32 { Int32(truncatingIfNeeded: concreteSource.handleValue) }
    /// The events since the handler last ran.
    public var data: DispatchSource.FileSystemEvent {
        DispatchSource.FileSystemEvent(rawValue: concreteSource.deliveredData.load(ordering: .acquiring))
    }
    /// The events the source watches for.
    public var mask: DispatchSource.FileSystemEvent { DispatchSource.FileSystemEvent(rawValue: concreteSource.maskValue) }
}

/// A source that reports changes of the system's memory pressure; `data` holds the
/// levels seen since the handler last ran.
///
/// Linux: pressure stall information (PSI, `/proc/pressure/memory`, Linux 4.20+) with two
/// triggers over a 2-second window (the shortest an unprivileged process may ask for):
/// `warning` when some task stalled on memory for 10% of the window (`some 200000
/// 2000000`), `critical` when all non-idle tasks stalled for 10% of it (`full 200000
/// 2000000`), and `normal` once a whole window plus a second passed without either
/// after a warning or critical. Where PSI is missing or refuses triggers (kernel
/// without `CONFIG_PSI`, `psi=0`), the source is created and works in every other way
/// but never fires — memory-pressure events are advice, and a program must not depend
/// on them. (This host, Linux 6.18 with PSI, supports them.)
public protocol DispatchSourceMemoryPressure: DispatchSourceProtocol {
    /// The levels seen since the handler last ran.
    var data: DispatchSource.MemoryPressureEvent { get }
    /// The levels the source watches for.
    var mask: DispatchSource.MemoryPressureEvent { get }
}

extension DispatchSourceMemoryPressure {
    /// The levels seen since the handler last ran.
    public var data: DispatchSource.MemoryPressureEvent {
        DispatchSource.MemoryPressureEvent(rawValue: concreteSource.deliveredData.load(ordering: .acquiring))
    }
    /// The levels the source watches for.
    public var mask: DispatchSource.MemoryPressureEvent { DispatchSource.MemoryPressureEvent(rawValue: concreteSource.maskValue) }
}
