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

extension DispatchSource {
    /// Makes a timer source. It never fires until `schedule(…)` is called; `data` is the
    /// number of fires since its handler last ran.
    /// - Parameters:
    ///   - flags: `.strict` to fire without leeway.
    ///   - queue: The queue its handlers run on (default: the default global queue).
    public class func makeTimerSource(flags: TimerFlags = [], queue: DispatchQueue? = nil) -> any DispatchSourceTimer {
        DispatchSource(kind: .timer, merge: .add, mask: flags.rawValue,
                       monitor: TimerMonitor(isStrict: flags.contains(.strict)), queue: queue)
    }

    /// Makes a source whose `add(data:)` sums into `data`.
    public class func makeUserDataAddSource(queue: DispatchQueue? = nil) -> any DispatchSourceUserDataAdd {
        DispatchSource(kind: .userDataAdd, merge: .add, queue: queue)
    }

    /// Makes a source whose `or(data:)` ORs into `data`.
    public class func makeUserDataOrSource(queue: DispatchQueue? = nil) -> any DispatchSourceUserDataOr {
        DispatchSource(kind: .userDataOr, merge: .or, queue: queue)
    }

    /// Makes a source whose `replace(data:)` replaces `data`.
    public class func makeUserDataReplaceSource(queue: DispatchQueue? = nil) -> any DispatchSourceUserDataReplace {
        DispatchSource(kind: .userDataReplace, merge: .replace, queue: queue)
    }

    /// Makes a source that counts deliveries of `signal` to the process (see
    /// `SignalCenter` for how Linux signals reach it: activating one blocks the signal in
    /// the event thread and installs a forwarding handler, which also runs a handler the
    /// program had installed; no program thread is left with the signal blocked).
    /// Traps unless `signal` is a signal number (1 through 64).
    public class func makeSignalSource(signal: Int32, queue: DispatchQueue? = nil) -> any DispatchSourceSignal {
        guard signal > 0 && signal < 65 else {
            fatalError("Conveyor: makeSignalSource(signal: \(signal)): not a signal number (1...64)")
        }
        return DispatchSource(kind: .signal, merge: .add, handle: UInt(signal), monitor: SignalMonitor(signal: signal), queue: queue)
    }

    /// Makes a source that fires while `fileDescriptor` has bytes to read; `data` is an
    /// estimate of them (0 at end of file). The fd must stay open until the cancel
    /// handler runs. A descriptor that is not open when the source is activated gives a
    /// source that never fires and cancels normally, as in libdispatch.
    public class func makeReadSource(fileDescriptor: Int32, queue: DispatchQueue? = nil) -> any DispatchSourceRead {
        DispatchSource(kind: .read, merge: .set, handle: UInt(bitPattern: Int(fileDescriptor)),
                       monitor: DescriptorMonitor(fd: fileDescriptor, isWrite: false), queue: queue)
    }

    /// Makes a source that fires while `fileDescriptor` has room to write; `data` is an
    /// estimate of it. The fd must stay open until the cancel handler runs. A descriptor
    /// that is not open when the source is activated gives a source that never fires and
    /// cancels normally, as in libdispatch.
    public class func makeWriteSource(fileDescriptor: Int32, queue: DispatchQueue? = nil) -> any DispatchSourceWrite {
        DispatchSource(kind: .write, merge: .set, handle: UInt(bitPattern: Int(fileDescriptor)),
                       monitor: DescriptorMonitor(fd: fileDescriptor, isWrite: true), queue: queue)
    }

    /// Makes a source that reports events of process `identifier` — on Linux its exit
    /// only (see `DispatchSourceProcess`).
    public class func makeProcessSource(identifier: pid_t, eventMask: ProcessEvent, queue: DispatchQueue? = nil) -> any DispatchSourceProcess {
        ProcessSource(kind: .process, merge: .or, handle: UInt(bitPattern: Int(identifier)), mask: eventMask.rawValue,
                      monitor: ProcessMonitor(pid: identifier, mask: eventMask), queue: queue)
    }

    /// Makes a source that reports changes to the file or directory open as
    /// `fileDescriptor` (see `DispatchSourceFileSystemObject` for the inotify mapping).
    /// The fd must stay open until the cancel handler runs.
    public class func makeFileSystemObjectSource(fileDescriptor: Int32, eventMask: FileSystemEvent, queue: DispatchQueue? = nil) -> any DispatchSourceFileSystemObject {
        FileSystemObjectSource(kind: .fileSystemObject, merge: .or, handle: UInt(bitPattern: Int(fileDescriptor)),
                               mask: eventMask.rawValue, monitor: FileSystemMonitor(fd: fileDescriptor, mask: eventMask), queue: queue)
    }

    /// Makes a source that reports changes of the system's memory pressure (see
    /// `DispatchSourceMemoryPressure` for what Linux offers).
    public class func makeMemoryPressureSource(eventMask: MemoryPressureEvent, queue: DispatchQueue? = nil) -> any DispatchSourceMemoryPressure {
        MemoryPressureSource(kind: .memoryPressure, merge: .or, mask: eventMask.rawValue,
                             monitor: MemoryPressureMonitor(mask: eventMask), queue: queue)
    }
}

// The kinds Linux's Dispatch lacks are subclasses, so that `DispatchSource` itself keeps
// Linux's conformances: conforming it to these protocols too would make its `data`,
// `mask` and `handle` ambiguous between their typed versions.

/// A process source (`makeProcessSource`).
final class ProcessSource: DispatchSource, DispatchSourceProcess, @unchecked Sendable {}

/// A file-system object source (`makeFileSystemObjectSource`).
final class FileSystemObjectSource: DispatchSource, DispatchSourceFileSystemObject, @unchecked Sendable {}

/// A memory-pressure source (`makeMemoryPressureSource`).
final class MemoryPressureSource: DispatchSource, DispatchSourceMemoryPressure, @unchecked Sendable {}
