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

extension DispatchSource {
    /// Options of a timer source.
    public struct TimerFlags: OptionSet, RawRepresentable, Sendable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates flags from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Keep to the leeway exactly: Conveyor then uses no leeway at all, so the timer
        /// is never coalesced with others and fires as close to its deadline as it can.
        public static let strict = TimerFlags(rawValue: 1)
    }

    /// What a file-system object source watches for (the values of `DISPATCH_VNODE_*`).
    /// See `DispatchSourceFileSystemObject` for how each maps to inotify on Linux.
    public struct FileSystemEvent: OptionSet, RawRepresentable, Sendable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates a set from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The file was unlinked (its link count fell to 0).
        public static let delete = FileSystemEvent(rawValue: 0x1)
        /// The file's contents (or a directory's entries) changed.
        public static let write = FileSystemEvent(rawValue: 0x2)
        /// The file grew.
        public static let extend = FileSystemEvent(rawValue: 0x4)
        /// The file's metadata (mode, owner, times, extended attributes) changed.
        public static let attrib = FileSystemEvent(rawValue: 0x8)
        /// The file's link count changed.
        public static let link = FileSystemEvent(rawValue: 0x10)
        /// The file was renamed or moved.
        public static let rename = FileSystemEvent(rawValue: 0x20)
        /// Access to the file was revoked (on Linux: its file system was unmounted).
        public static let revoke = FileSystemEvent(rawValue: 0x40)
        /// The file was unlocked. Linux cannot report this; it never occurs.
        public static let funlock = FileSystemEvent(rawValue: 0x100)
        /// Every event but `funlock`.
        public static let all: FileSystemEvent = [.delete, .write, .extend, .attrib, .link, .rename, .revoke]
    }

    /// What a process source watches for (the values of `DISPATCH_PROC_*`). Linux reports
    /// only `exit` (through a pidfd); the others are accepted but never occur.
    public struct ProcessEvent: OptionSet, RawRepresentable, Sendable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates a set from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The process exited.
        public static let exit = ProcessEvent(rawValue: 0x8000_0000)
        /// The process forked (not reported on Linux).
        public static let fork = ProcessEvent(rawValue: 0x4000_0000)
        /// The process executed a new image (not reported on Linux).
        public static let exec = ProcessEvent(rawValue: 0x2000_0000)
        /// The process received a signal (not reported on Linux).
        public static let signal = ProcessEvent(rawValue: 0x0800_0000)
        /// All of the above.
        public static let all: ProcessEvent = [.exit, .fork, .exec, .signal]
    }

    /// Levels of system memory pressure (the values of `DISPATCH_MEMORYPRESSURE_*`). See
    /// `DispatchSourceMemoryPressure` for how Linux's pressure stall information maps to them.
    public struct MemoryPressureEvent: OptionSet, RawRepresentable, Sendable {
        /// The raw bits.
        public let rawValue: UInt
        /// Creates a set from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Pressure went back to normal.
        public static let normal = MemoryPressureEvent(rawValue: 0x1)
        /// Memory is getting scarce: release what is cheap to rebuild.
        public static let warning = MemoryPressureEvent(rawValue: 0x2)
        /// Memory is critically scarce: release all you can.
        public static let critical = MemoryPressureEvent(rawValue: 0x4)
        /// All levels.
        public static let all: MemoryPressureEvent = [.normal, .warning, .critical]
    }
}
