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

/// Options for a work item: how it runs on a concurrent queue and which quality of
/// service applies to it.
public struct DispatchWorkItemFlags: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: UInt
    /// Creates flags from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The work runs alone on a concurrent queue: after the work before it and before the work after it.
    public static let barrier = DispatchWorkItemFlags(rawValue: 0x1)
    /// Do not carry the submitter's context (accepted; Conveyor carries none).
    public static let detached = DispatchWorkItemFlags(rawValue: 0x2)
    /// Carry the submitter's context (accepted; Conveyor carries none).
    public static let assignCurrentContext = DispatchWorkItemFlags(rawValue: 0x4)
    /// Ignore the quality of service of the submitter.
    public static let noQoS = DispatchWorkItemFlags(rawValue: 0x8)
    /// Prefer the queue's quality of service over the item's.
    public static let inheritQoS = DispatchWorkItemFlags(rawValue: 0x10)
    /// Prefer the item's quality of service over the queue's.
    public static let enforceQoS = DispatchWorkItemFlags(rawValue: 0x20)

    /// The band asked for by a `qos` argument together with these flags, or nil for "the
    /// queue's". `.inheritQoS` is ignored when `.enforceQoS` is given too (block.h).
    @usableFromInline
    func band(for qos: DispatchQoS) -> QoSBand? {
        if contains(.noQoS) || (contains(.inheritQoS) && !contains(.enforceQoS)) || qos.qosClass == .unspecified {
            return nil
        }
        return qos.qosClass.band
    }
}
