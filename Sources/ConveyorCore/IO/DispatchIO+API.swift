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

extension DispatchIO {
    /// How a channel addresses the file.
    public enum StreamType: UInt, Sendable {
        /// Bytes in order at the file's current position; offsets are ignored.
        case stream = 0
        /// Offsets from the position the file had when the channel was made; the file must
        /// be seekable (not a pipe or socket).
        case random = 1
    }

    /// Options of `close(flags:)`.
    public struct CloseFlags: OptionSet, RawRepresentable, Sendable {
        /// The flag bits.
        public let rawValue: UInt
        /// Flags from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Cancel the channel's operations: they end with `ECANCELED`.
        public static let stop = CloseFlags(rawValue: 1)
    }

    /// Options of `setInterval(interval:flags:)`.
    public struct IntervalFlags: OptionSet, RawRepresentable, Sendable {
        /// The flag bits.
        public let rawValue: UInt
        /// Flags from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// No flags.
        public init(nilLiteral: ()) { self.rawValue = 0 }
        /// Deliver at every interval even when less than the low-water mark is ready.
        public static let strictInterval = IntervalFlags(rawValue: 1)
    }

    /// Creates a channel on an open descriptor. The channel takes the descriptor over
    /// until the cleanup handler runs (with 0, or with the error that made the channel
    /// unusable: `EBADF`, `ESPIPE` for a random channel on a pipe, `EISDIR`); only then may
    /// the caller close it.
    @preconcurrency public convenience init(type: DispatchIO.StreamType, fileDescriptor: Int32, queue: DispatchQueue,
                            cleanupHandler: @escaping @Sendable (_ error: Int32) -> Void) {
        self.init(type: type, descriptor: fileDescriptor)
        let entry = IOFileEntry.forDescriptor(fileDescriptor)
        var error = entry.err
        if error == 0 { error = DispatchIO.validate(type, entry.fileMode) }
        var position: Int64 = 0
        if error == 0 && type == .random {
            position = Int64(lseek(fileDescriptor, 0, SEEK_CUR))
            if position < 0 { error = errno; position = 0 }
        }
        attach(entry: entry, error: error, filePointer: position, queue: queue,
               cleanup: IOCleanupHandler(call: cleanupHandler))
    }

    /// Creates a channel on the file at an absolute `path`, opened with `oflag` and `mode`
    /// at the first operation; nil when the path is not absolute. A file that does not
    /// exist (and is not to be created) gives the cleanup handler `ENOENT` at once and
    /// every operation the same error.
    @preconcurrency public convenience init?(type: DispatchIO.StreamType, path: UnsafePointer<Int8>, oflag: Int32, mode: mode_t,
                             queue: DispatchQueue, cleanupHandler: @escaping @Sendable (_ error: Int32) -> Void) {
        guard path.pointee == 0x2F else { return nil }
        self.init(type: type, descriptor: -1)
        let length = strlen(path)
        let bytes = Array(UnsafeBufferPointer(start: path, count: length + 1))
        var status = stat()
        let found = (oflag & O_NOFOLLOW) != 0 ? lstat(path, &status) : stat(path, &status)
        var error: Int32 = 0
        var fileMode: mode_t = 0
        if found == 0 {
            fileMode = status.st_mode
            error = DispatchIO.validate(type, fileMode)
        } else {
            error = errno
            if (oflag & O_CREAT) != 0 && bytes[length - 1] != 0x2F {
                // The file will be created if its directory exists.
                var parent = bytes
                let slash = parent.lastIndex(of: 0x2F)!
                parent[max(slash, 1)] = 0
                if slash == 0 { parent[1] = 0 }
                if parent.withUnsafeBufferPointer({ stat($0.baseAddress!, &status) }) == 0 {
                    fileMode = S_IFREG
                    error = 0
                }
            }
        }
        let entry = error == 0 ? IOFileEntry.forPath(bytes, flags: oflag, mode: mode, fileMode: fileMode) : nil
        attach(entry: entry, error: error, filePointer: 0, queue: queue, cleanup: IOCleanupHandler(call: cleanupHandler))
    }

    /// Creates a channel on the file of another channel (a random channel on a stream
    /// channel's file, for instance), once that channel's earlier calls have been made.
    @preconcurrency public convenience init(type: DispatchIO.StreamType, io: DispatchIO, queue: DispatchQueue,
                            cleanupHandler: @escaping @Sendable (_ error: Int32) -> Void) {
        self.init(type: type, descriptor: io.fileDescriptorForCopy)
        let cleanup = IOCleanupHandler(call: cleanupHandler)
        self.queue.suspend()
        io.queue.async { [self] in
            let early = io.channelError()
            let run: @Sendable () -> Void = { [self] in
                var error = early != 0 ? early : io.channelError()
                let source = io.entry
                if error == 0, let source {
                    error = source.err
                    if error == 0 { error = DispatchIO.validate(type, source.fileMode) }
                }
                var position: Int64 = 0
                var entry: IOFileEntry?
                if error == 0, let source {
                    if source.isPathEntry {
                        entry = source.copyForPath()
                    } else {
                        source.retain()
                        entry = source
                        if type == .random {
                            position = Int64(lseek(source.fd, 0, SEEK_CUR))
                            if position < 0 { error = errno; position = 0 }
                        }
                    }
                }
                attach(entry: entry, error: error, filePointer: position, queue: queue, cleanup: cleanup)
                self.queue.resume()
            }
            if early != 0 { run() } else { (io.entry?.barrierQueue ?? DispatchQueue.global()).async(execute: run) }
        }
    }

    private var fileDescriptorForCopy: Int32 { entry?.isPathEntry == true ? -1 : fileDescriptor }

    /// EISDIR for a directory, ESPIPE for a random channel on a pipe or socket.
    static func validate(_ type: StreamType, _ mode: mode_t) -> Int32 {
        let kind = mode & S_IFMT
        if kind == S_IFDIR { return EISDIR }
        if type == .random && (kind == S_IFIFO || kind == S_IFSOCK) { return ESPIPE }
        return 0
    }

    /// Reads `length` bytes (to the end of the file when `Int.max`) at `offset` (random
    /// channels) or the current position (stream channels). The handler gets pieces of at
    /// least the low-water mark (`done` false), then `done` true with the rest: at the end
    /// of the file an empty piece with error 0; on an error the data read so far first,
    /// then nil and the error (`ECANCELED` after a stop).
    @preconcurrency public func read(offset: off_t, length: Int, queue: DispatchQueue,
                     ioHandler: @escaping @Sendable (_ done: Bool, _ data: DispatchData?, _ error: Int32) -> Void) {
        submitOperation(.read, offset: Int64(offset), length: length, data: .empty, queue: queue,
                        handler: IOHandler(call: ioHandler))
    }

    /// Writes `data` at `offset` (random channels) or the current position (stream
    /// channels). The handler gets the data still to write as progress (`done` false),
    /// then `done` true with nil, or with the unwritten data and the error (`EPIPE` when a
    /// pipe's reader is gone: the process is not killed by SIGPIPE).
    @preconcurrency public func write(offset: off_t, data: DispatchData, queue: DispatchQueue,
                      ioHandler: @escaping @Sendable (_ done: Bool, _ data: DispatchData?, _ error: Int32) -> Void) {
        submitOperation(.write, offset: Int64(offset), length: data.count, data: data, queue: queue,
                        handler: IOHandler(call: ioHandler))
    }

    /// Delivers partial results at least every `interval` (only when the low-water mark is
    /// reached, unless `.strictInterval`).
    public func setInterval(interval: DispatchTimeInterval, flags: DispatchIO.IntervalFlags = []) {
        let nanoseconds = interval.saturatingNanoseconds
        setInterval(nanoseconds: UInt64(max(nanoseconds, 0)), strict: flags.contains(.strictInterval))
    }

    /// Closes the channel: operations already submitted complete (or, with `.stop`, end
    /// with `ECANCELED`), later ones fail with `ECANCELED`, and the cleanup handler runs
    /// once nothing uses the descriptor any more.
    public func close(flags: DispatchIO.CloseFlags = []) {
        closeChannel(stop: flags.contains(.stop))
    }
}
