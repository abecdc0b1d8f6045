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
import Synchronization

/// What channels on one file share (libdispatch's "fd entry"): the descriptor, its kind,
/// the lanes that run operations in order, the barrier queue and group, and the cleanup
/// handlers. Channels on the same fd share one entry; a path channel has its own and opens
/// the file lazily, at its first operation.
///
/// An entry lives while channels or operations hold it. When the last one goes, the fd's
/// flags are restored (or the file the entry opened is closed) and every cleanup handler
/// is submitted to its queue.
final class IOFileEntry: @unchecked Sendable {
    /// Entries of descriptor channels, by fd; guarded by `registryLock`, which also guards
    /// every entry's reference count (so a lookup never finds an entry being disposed).
    nonisolated(unsafe) private static var registry: [Int32: IOFileEntry] = [:]
    private static let registryLock = FutexLock()

    /// The descriptor (-1 until a path entry opens its file).
    private(set) var fd: Int32
    private let path: [CChar]?
    private let openFlags: Int32
    private let openMode: mode_t
    let fileMode: mode_t
    /// Regular files: blocking calls on the pool. Others: non-blocking, readiness from the
    /// event thread.
    let isDisk: Bool
    private var originalFlags: Int32 = -1
    private let errorCode = Atomic<Int32>(0)
    private let openLock = FutexLock()

    let barrierQueue = DispatchQueue(label: "conveyor.io.barrier")
    let barrierGroup = DispatchGroup()
    let readLane: IOLane
    let writeLane: IOLane
    /// The channel of `DispatchIO.read(fromFileDescriptor:…)` and `write(toFileDescriptor:…)`.
    var convenienceChannel: DispatchIO?

    // Guarded by registryLock.
    private var references = 0
    private var cleanups: [@Sendable () -> Void] = []

    /// The error every operation on the file gets (EBADF, or the error of a failed open).
    var err: Int32 { errorCode.load(ordering: .acquiring) }

    private init(fd: Int32, path: [CChar]?, openFlags: Int32, openMode: mode_t, fileMode: mode_t, err: Int32) {
        self.fd = fd
        self.path = path
        self.openFlags = openFlags
        self.openMode = openMode
        self.fileMode = fileMode
        isDisk = (fileMode & S_IFMT) == S_IFREG
        errorCode.store(err, ordering: .relaxed)
        readLane = IOLane(events: .input, isDisk: isDisk)
        writeLane = isDisk ? readLane : IOLane(events: .output, isDisk: false)
    }

    /// The entry of `fd`, made on first use (fstat; non-regular files become non-blocking
    /// until the entry goes, regular files blocking), with one reference for the caller.
    static func forDescriptor(_ fd: Int32) -> IOFileEntry {
        registryLock.lock()
        defer { registryLock.unlock() }
        if let existing = registry[fd] {
            existing.references += 1
            return existing
        }
        var status = stat()
        let entry: IOFileEntry
        if fd < 0 || fstat(fd, &status) != 0 {
            let code = fd < 0 ? EBADF : errno
            entry = IOFileEntry(fd: fd, path: nil, openFlags: 0, openMode: 0, fileMode: 0, err: code)
        } else {
            entry = IOFileEntry(fd: fd, path: nil, openFlags: 0, openMode: 0, fileMode: status.st_mode, err: 0)
            let flags = fcntl(fd, F_GETFL)
            if flags != -1 {
                let wanted = entry.isDisk ? flags & ~O_NONBLOCK : flags | O_NONBLOCK
                if wanted == flags || fcntl(fd, F_SETFL, wanted) == 0 { entry.originalFlags = flags }
            }
        }
        entry.references = 1
        registry[fd] = entry
        return entry
    }

    /// A private entry for a path channel, with one reference for the caller; the file is
    /// opened at the first operation.
    static func forPath(_ path: [CChar], flags: Int32, mode: mode_t, fileMode: mode_t) -> IOFileEntry {
        let entry = IOFileEntry(fd: -1, path: path, openFlags: flags, openMode: mode, fileMode: fileMode, err: 0)
        entry.references = 1
        return entry
    }

    /// Whether the entry opens a path itself.
    var isPathEntry: Bool { path != nil }

    /// A new entry for the same path (a channel made from a path channel gets its own).
    func copyForPath() -> IOFileEntry {
        IOFileEntry.forPath(path!, flags: openFlags, mode: openMode, fileMode: fileMode)
    }

    /// Opens a path entry's file if not yet open; returns 0 or the error (kept for every
    /// later operation).
    func openIfNeeded() -> Int32 {
        guard let path else { return 0 }
        return openLock.withLock {
            if fd != -1 { return 0 }
            let current = err
            if current != 0 { return current }
            let flags = (isDisk ? openFlags & ~O_NONBLOCK : openFlags | O_NONBLOCK) | O_CLOEXEC
            var opened: Int32
            repeat {
                opened = path.withUnsafeBufferPointer { open($0.baseAddress!, flags, openMode) }
            } while opened == -1 && errno == EINTR
            if opened == -1 {
                let code = errno
                errorCode.store(code, ordering: .releasing)
                return code
            }
            fd = opened
            return 0
        }
    }

    /// The descriptor, opening a path entry's file first (for `fileDescriptor` in a barrier).
    func descriptorOpeningIfNeeded() -> Int32 {
        _ = openIfNeeded()
        return openLock.withLock { fd }
    }

    /// Marks the descriptor bad for every later operation (first error wins).
    func recordDescriptorError(_ code: Int32) {
        _ = errorCode.compareExchange(expected: 0, desired: code, ordering: .acquiringAndReleasing)
    }

    /// Adds work to run when the entry goes (a cleanup handler, a convenience handler).
    func addCleanup(_ work: @escaping @Sendable () -> Void) {
        IOFileEntry.registryLock.withLock { cleanups.append(work) }
    }

    func retain() {
        IOFileEntry.registryLock.withLock { references += 1 }
    }

    /// Takes a reference unless the entry is already gone (its last reference was
    /// released and its cleanup handlers submitted); returns whether it took one. For a
    /// holder that cannot know whether a channel still holds the entry: a handler
    /// delivered under such a reference returns before any cleanup handler runs.
    func retainIfLive() -> Bool {
        IOFileEntry.registryLock.withLock {
            guard references > 0 else { return false }
            references += 1
            return true
        }
    }

    func release() {
        IOFileEntry.registryLock.lock()
        references -= 1
        ensure(references >= 0, "Conveyor: DispatchIO file entry released too often")
        guard references == 0 else {
            IOFileEntry.registryLock.unlock()
            return
        }
        if path == nil, IOFileEntry.registry[fd] === self { IOFileEntry.registry[fd] = nil }
        // Still under the lock, so a new channel on the same fd cannot set flags that this
        // restore would undo. No operation is left, so the lanes are idle.
        readLane.stopWatching()
        writeLane.stopWatching()
        if path == nil {
            if originalFlags != -1 { _ = fcntl(fd, F_SETFL, originalFlags) }
        } else if fd != -1 {
            close(fd)
            fd = -1
        }
        let work = cleanups
        cleanups = []
        convenienceChannel = nil
        IOFileEntry.registryLock.unlock()
        for item in work { item() }
    }

    /// Live descriptor entries (for tests).
    static var registeredCount: Int { registryLock.withLock { registry.count } }
}
