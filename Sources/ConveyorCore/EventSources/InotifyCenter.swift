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

/// inotify's event bits (from <sys/inotify.h>).
enum InotifyBits {
    static let modify: UInt32 = 0x0000_0002
    static let attrib: UInt32 = 0x0000_0004
    static let movedFrom: UInt32 = 0x0000_0040
    static let movedTo: UInt32 = 0x0000_0080
    static let create: UInt32 = 0x0000_0100
    static let delete: UInt32 = 0x0000_0200
    static let deleteSelf: UInt32 = 0x0000_0400
    static let moveSelf: UInt32 = 0x0000_0800
    static let unmount: UInt32 = 0x0000_2000
    static let queueOverflow: UInt32 = 0x0000_4000
    static let isDirectory: UInt32 = 0x4000_0000
    /// A directory's entries changed.
    static let entries: UInt32 = movedFrom | movedTo | create | delete

    /// What to ask inotify for to report `events`.
    static func mask(for events: DispatchSource.FileSystemEvent) -> UInt32 {
        var mask: UInt32 = 0
        if !events.isDisjoint(with: [.write, .extend]) { mask |= modify | entries }
        if !events.isDisjoint(with: [.attrib, .link, .delete]) { mask |= attrib }
        if events.contains(.link) { mask |= entries }
        if events.contains(.rename) { mask |= moveSelf }
        if events.contains(.delete) { mask |= deleteSelf }
        return mask == 0 ? deleteSelf : mask   // inotify refuses an empty mask; unmount is always reported
    }
}

/// Watches files for file-system object sources: one inotify instance in the event loop,
/// one watch per inode (sources on the same file share it, with the union of their
/// masks). See `DispatchSourceFileSystemObject` for the mapping of inotify events.
/// The instance is closed when the last source goes.
final class InotifyCenter: @unchecked Sendable {
    static let shared = InotifyCenter()

    private struct Member {
        let wd: Int32
        let fd: Int32
        let mask: DispatchSource.FileSystemEvent
        weak var source: DispatchSource?
    }

    /// One inode's watch: the size and link count last seen, to tell `extend`, `link`
    /// and `delete` apart.
    private struct Watch {
        var members: [UInt64] = []
        var size: UInt64 = 0
        var links: UInt64 = 0
    }

    private let lock = FutexLock()
    // Guarded by `lock`.
    private var fd: Int32 = -1
    private var registration: RegistrationID?
    private var members: [UInt64: Member] = [:]
    private var watches: [Int32: Watch] = [:]
    private var nextToken: UInt64 = 1

    /// Starts watching the file open as `fileFD` for `source`; returns a token for
    /// `remove`, or nil when inotify refused (the source then never fires).
    func add(fileFD: Int32, mask: DispatchSource.FileSystemEvent, source: DispatchSource) -> UInt64? {
        lock.lock()
        let token = addLocked(fileFD: fileFD, mask: mask, source: source)
        let retired = token == nil && members.isEmpty ? retireLocked() : nil
        lock.unlock()
        if let retired { Self.retire(retired) }
        return token
    }

    private func addLocked(fileFD: Int32, mask: DispatchSource.FileSystemEvent, source: DispatchSource) -> UInt64? {
        if fd < 0 {
            let instance = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard instance >= 0 else { return nil }
            guard let id = try? EventLoop.shared.register(fd: instance, events: [.input], handler: { [self] _ in
                eventsArrived(on: instance)
            }) else {
                close(instance)
                return nil
            }
            fd = instance
            registration = id
        }
        let wd = cnv_inotify_watch_fd(fd, fileFD, InotifyBits.mask(for: mask), 1)
        guard wd >= 0 else { return nil }
        let token = nextToken
        nextToken += 1
        members[token] = Member(wd: wd, fd: fileFD, mask: mask, source: source)
        if watches[wd] == nil {
            var watch = Watch()
            _ = cnv_file_size_and_links(fileFD, &watch.size, &watch.links)
            watches[wd] = watch
        }
        watches[wd]!.members.append(token)
        return token
    }

    /// Stops watching for the member `token`; when it returns no event is merged into its
    /// source any more (merges after `cancel()` are ignored by the source anyway).
    func remove(_ token: UInt64) {
        lock.lock()
        guard let member = members.removeValue(forKey: token) else {
            lock.unlock()
            return
        }
        if var watch = watches[member.wd] {
            watch.members.removeAll { $0 == token }
            if watch.members.isEmpty {
                watches[member.wd] = nil
                _ = inotify_rm_watch(fd, member.wd)
            } else {
                watches[member.wd] = watch
                let rest = watch.members.compactMap { members[$0] }
                let union = rest.reduce(into: DispatchSource.FileSystemEvent()) { $0.formUnion($1.mask) }
                _ = cnv_inotify_watch_fd(fd, rest[0].fd, InotifyBits.mask(for: union), 0)
            }
        }
        let retired = members.isEmpty ? retireLocked() : nil
        lock.unlock()
        if let retired { Self.retire(retired) }
    }

    /// Takes the instance out of the center (nothing watches any more). Lock held; the
    /// caller closes it with `close(_:)` after unlocking.
    private func retireLocked() -> (RegistrationID?, Int32) {
        defer {
            registration = nil
            fd = -1
            watches = [:]
        }
        return (registration, fd)
    }

    /// Unregisters (waiting out a running callback, so never under `lock`) and closes.
    private static func retire(_ retired: (RegistrationID?, Int32)) {
        if let id = retired.0 { EventLoop.shared.unregister(id) }
        if retired.1 >= 0 { _ = close(retired.1) }
    }

    /// On the event thread: read all queued events, map them per watch, merge them.
    private func eventsArrived(on instance: Int32) {
        var raw: [(wd: Int32, mask: UInt32)] = []
        let capacity = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(instance, buffer, capacity)
            if count <= 0 { break }
            var offset = 0
            while offset + 16 <= count {
                let wd = buffer.load(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                let nameLength = buffer.load(fromByteOffset: offset + 12, as: UInt32.self)
                raw.append((wd, mask))
                offset += 16 + Int(nameLength)
            }
        }
        guard !raw.isEmpty else { return }
        var deliveries: [(DispatchSource, UInt)] = []
        lock.lock()
        var seen: [Int32: DispatchSource.FileSystemEvent] = [:]
        for (wd, mask) in raw {
            if mask & InotifyBits.queueOverflow != 0 {
                for key in watches.keys { seen[key, default: []].insert(.write) }
            } else if watches[wd] != nil {
                seen[wd, default: []].formUnion(translateLocked(wd: wd, mask: mask))
            }
        }
        for (wd, events) in seen {
            for token in watches[wd]?.members ?? [] {
                guard let member = members[token], let source = member.source else { continue }
                let mine = events.intersection(member.mask)
                if !mine.isEmpty { deliveries.append((source, mine.rawValue)) }
            }
        }
        lock.unlock()
        for (source, events) in deliveries { source.merge(events) }
    }

    /// One inotify event as Dispatch's file-system events, with the watch's size and link
    /// count brought up to date (fstat of a member's fd). Lock held.
    private func translateLocked(wd: Int32, mask: UInt32) -> DispatchSource.FileSystemEvent {
        guard var watch = watches[wd], let probe = watch.members.first.flatMap({ members[$0] }) else { return [] }
        var events: DispatchSource.FileSystemEvent = []
        var size: UInt64 = 0, links: UInt64 = 0
        let known = cnv_file_size_and_links(probe.fd, &size, &links) == 0
        if mask & InotifyBits.modify != 0 {
            events.insert(.write)
            if known && size > watch.size { events.insert(.extend) }
        }
        if mask & InotifyBits.attrib != 0 {
            if known && links != watch.links {
                events.insert(.link)
                if links == 0 { events.insert(.delete) }
            } else {
                events.insert(.attrib)
            }
        }
        if mask & InotifyBits.entries != 0 {
            events.insert(.write)
            if mask & InotifyBits.isDirectory != 0 { events.insert(.link) }
        }
        if mask & InotifyBits.moveSelf != 0 { events.insert(.rename) }
        if mask & InotifyBits.deleteSelf != 0 { events.insert(.delete) }
        if mask & InotifyBits.unmount != 0 { events.insert(.revoke) }
        if known {
            watch.size = size
            watch.links = links
            watches[wd] = watch
        }
        return events
    }
}

/// A file-system object source's share of the `InotifyCenter`.
final class FileSystemMonitor: SourceMonitor, @unchecked Sendable {
    let fd: Int32
    let mask: DispatchSource.FileSystemEvent
    /// Touched only by `install`/`uninstall`, which the source serializes.
    var token: UInt64?

    init(fd: Int32, mask: DispatchSource.FileSystemEvent) {
        self.fd = fd
        self.mask = mask
    }

    func install(for source: DispatchSource) {
        token = InotifyCenter.shared.add(fileFD: fd, mask: mask, source: source)
    }

    func uninstall(for source: DispatchSource) {
        if let token { InotifyCenter.shared.remove(token) }
        token = nil
    }
}
