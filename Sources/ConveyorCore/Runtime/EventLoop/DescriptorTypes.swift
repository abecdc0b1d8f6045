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

/// Readiness bits of `epoll` (`EPOLLIN`, `EPOLLOUT`, …) as an option set, used both for
/// what a registration asks for and for what its handler is told.
struct EpollEvents: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data can be read (`EPOLLIN`).
    static let input = EpollEvents(rawValue: 0x001)
    /// Urgent data can be read (`EPOLLPRI`).
    static let priority = EpollEvents(rawValue: 0x002)
    /// Data can be written (`EPOLLOUT`).
    static let output = EpollEvents(rawValue: 0x004)
    /// An error is pending (`EPOLLERR`); always reported, need not be asked for.
    static let error = EpollEvents(rawValue: 0x008)
    /// The peer hung up (`EPOLLHUP`); always reported, need not be asked for.
    static let hangUp = EpollEvents(rawValue: 0x010)
    /// The peer shut down its writing half (`EPOLLRDHUP`).
    static let readHangUp = EpollEvents(rawValue: 0x2000)
    /// Deliver at most one event, then disarm this registration until `modify` re-arms it.
    /// Handled per registration by the loop (the kernel's `EPOLLONESHOT` would disarm
    /// every registration on the fd).
    static let oneShot = EpollEvents(rawValue: 1 << 30)
    /// Edge-triggered (`EPOLLET`); applied to the fd only when every armed registration
    /// on it asks for it.
    static let edgeTriggered = EpollEvents(rawValue: 1 << 31)

    /// The readiness bits a registration can ask for.
    static let interestBits: EpollEvents = [.input, .priority, .output, .readHangUp]
    /// The bits the kernel reports whether asked or not.
    static let alwaysReported: EpollEvents = [.error, .hangUp]
}

/// Names one fd registration of an `EventLoop`. Ids are never reused, so an event that
/// was read from the kernel just before `unregister` can never reach a later registration.
struct RegistrationID: Hashable, Sendable {
    let rawValue: UInt64
}

/// What an fd registration runs when the fd is ready. It runs on the event thread and
/// must be short.
typealias DescriptorHandler = @Sendable (EpollEvents) -> Void

/// A failed `epoll_ctl` while registering or modifying an fd, with its errno (for
/// example `EPERM` for a regular file, which epoll cannot watch, or `EBADF`).
struct EventLoopError: Error, Equatable, CustomStringConvertible {
    let errno: Int32
    var description: String { "epoll_ctl failed: \(SystemCall.errorDescription(errno)) (errno \(errno))" }
}
