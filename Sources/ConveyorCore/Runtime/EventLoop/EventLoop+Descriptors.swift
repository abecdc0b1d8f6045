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

/// One handler watching one fd. Several registrations may share an fd (a read source
/// and a write source on one socket): the kernel sees the union of what they ask for.
struct Registration {
    let fd: Int32
    var interest: EpollEvents
    /// False once a one-shot registration delivered its event, until `modify` re-arms it.
    var isArmed: Bool
    let handler: DescriptorHandler

    /// Whether it wants any events now.
    var wantsEvents: Bool { isArmed && !interest.isDisjoint(with: .interestBits) }

    /// What of `events` this registration is told about.
    func deliverable(_ events: EpollEvents) -> EpollEvents {
        events.intersection(interest.intersection(.interestBits).union(.alwaysReported))
    }
}

/// The loop's view of one fd in the epoll set.
struct DescriptorEntry {
    /// Distinguishes this entry from an earlier one for the same fd number in epoll data.
    let serial: UInt32
    var members: [RegistrationID] = []
    /// The mask the kernel has for the fd, or nil when it is not in the epoll set.
    var kernelMask: UInt32?
}

/// fd registrations for dispatch sources. Handlers run on the event thread and must be
/// short. Level-triggered by default: a handler that does not consume the readiness is
/// called again on the next loop; sources that hand the work to a queue ask for
/// `.oneShot` and re-arm with `modify` when done.
extension EventLoop {
    /// Starts watching `fd` for `events` (readiness bits, optionally `.oneShot` or
    /// `.edgeTriggered`); `handler` gets the bits that are ready, plus error/hang-up.
    /// The fd must stay open until `unregister` returns. Throws the errno of a failed
    /// `epoll_ctl` (EPERM for regular files, EBADF for a closed fd). A number that is one
    /// of the loop's own fds (the caller's fd was closed and the loop reused its number)
    /// throws EBADF without touching the epoll set, whose entries for them it would
    /// otherwise overwrite.
    func register(fd: Int32, events: EpollEvents, handler: @escaping DescriptorHandler) throws(EventLoopError) -> RegistrationID {
        if fd == epollFD || fd == wakeFD || timerQueues.contains(where: { $0.fd == fd }) {
            throw EventLoopError(errno: EBADF)
        }
        lock.lock()
        let id = RegistrationID(rawValue: nextRegistration)
        nextRegistration += 1
        registrations[id] = Registration(fd: fd, interest: events, isArmed: true, handler: handler)
        if descriptors[fd] == nil {
            descriptors[fd] = DescriptorEntry(serial: nextDescriptorSerial)
            nextDescriptorSerial &+= 1
        }
        descriptors[fd]!.members.append(id)
        let failure = updateKernel(fd: fd)
        let dropped = failure == 0 ? nil : removeRegistrationLocked(id)
        lock.unlock()
        withExtendedLifetime(dropped) {}
        if failure != 0 { throw EventLoopError(errno: failure) }
        return id
    }

    /// Changes what a registration watches for, and re-arms it if it was a one-shot that
    /// fired. Returns false if `id` is not registered.
    @discardableResult
    func modify(_ id: RegistrationID, events: EpollEvents) throws(EventLoopError) -> Bool {
        lock.lock()
        guard var registration = registrations[id] else { lock.unlock(); return false }
        registration.interest = events
        registration.isArmed = true
        registrations[id] = registration
        let failure = updateKernel(fd: registration.fd)
        lock.unlock()
        if failure != 0 { throw EventLoopError(errno: failure) }
        return true
    }

    /// Stops watching. When this returns the handler is not running and will never be
    /// called again, so the caller may close the fd — except when called from that very
    /// handler, which then just finishes (it is not called again either). Harmless on
    /// an id that is no longer registered.
    func unregister(_ id: RegistrationID) {
        lock.lock()
        let dropped = removeRegistrationLocked(id)
        let ticket = completionTicket(ifRunning: .descriptor(id))
        lock.unlock()
        if let ticket { waitForCompletion(ticket) }
        withExtendedLifetime(dropped) {}  // released here, outside the lock
    }

    /// Number of live registrations (for tests and diagnostics).
    var registrationCount: Int { lock.withLock { registrations.count } }

    // MARK: lock held

    /// Removes a registration and brings the kernel's mask up to date.
    func removeRegistrationLocked(_ id: RegistrationID) -> Registration? {
        guard let registration = registrations.removeValue(forKey: id) else { return nil }
        descriptors[registration.fd]?.members.removeAll { $0 == id }
        _ = updateKernel(fd: registration.fd)
        return registration
    }

    /// Makes the epoll set's mask for `fd` match its armed registrations (removing the fd
    /// from the set when none wants events, so a hung-up fd cannot spin the loop), and
    /// forgets the entry when it has no registrations. Returns 0 or the errno.
    func updateKernel(fd: Int32) -> Int32 {
        guard var entry = descriptors[fd] else { return 0 }
        var mask: UInt32 = 0
        var allEdgeTriggered = true
        var wanted = false
        for id in entry.members {
            guard let registration = registrations[id], registration.wantsEvents else { continue }
            wanted = true
            mask |= registration.interest.intersection(.interestBits).rawValue
            if !registration.interest.contains(.edgeTriggered) { allEdgeTriggered = false }
        }
        let target: UInt32? = wanted ? mask | (allEdgeTriggered ? EpollEvents.edgeTriggered.rawValue : 0) : nil
        var failure: Int32 = 0
        if target != entry.kernelMask {
            let key = UInt64(entry.serial) << 32 | UInt64(UInt32(bitPattern: fd))
            func control(_ operation: Int32, _ events: UInt32) -> Int32 {
                cnv_epoll_ctl(epollFD, operation, fd, events, key) == 0 ? 0 : SystemCall.errno
            }
            switch (entry.kernelMask, target) {
            case (nil, let events?):
                failure = control(1, events)
                if failure == EEXIST { failure = control(3, events) }
            case (_?, let events?):
                failure = control(3, events)
                // The fd was closed and its number reused without unregistering.
                if failure == ENOENT { failure = control(1, events) }
            case (_?, nil):
                _ = control(2, 0)  // EBADF/ENOENT: already closed, already gone
            case (nil, nil):
                break
            }
            if failure == 0 { entry.kernelMask = target }
        }
        descriptors[fd] = entry.members.isEmpty ? nil : entry
        return failure
    }

    /// Turns one ready fd from `epoll_wait` into pending callbacks for the registrations
    /// that want those events. Stale keys (the fd was unregistered meanwhile) are dropped.
    func collectDescriptorEvent(key: UInt64, events: EpollEvents, into batch: inout [PendingCallback]) {
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
        guard let entry = descriptors[fd], UInt64(entry.serial) == key >> 32 else { return }
        for id in entry.members {
            guard let registration = registrations[id], registration.wantsEvents else { continue }
            let delivered = registration.deliverable(events)
            if !delivered.isEmpty { batch.append(.descriptor(id, delivered)) }
        }
    }

    /// Takes a pending fd event for running: checks the registration still wants it and
    /// disarms a one-shot registration. Returns the handler and what to tell it.
    func claimDescriptor(_ id: RegistrationID, events: EpollEvents) -> (DescriptorHandler, EpollEvents)? {
        guard var registration = registrations[id], registration.wantsEvents else { return nil }
        let delivered = registration.deliverable(events)
        guard !delivered.isEmpty else { return nil }
        if registration.interest.contains(.oneShot) {
            registration.isArmed = false
            registrations[id] = registration
            _ = updateKernel(fd: registration.fd)
        }
        return (registration.handler, delivered)
    }
}
