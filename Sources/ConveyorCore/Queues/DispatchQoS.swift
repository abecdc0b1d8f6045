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

/// A quality-of-service level: how important a task is, which decides which work the pool
/// runs first and how much CPU time its threads are given.
public struct DispatchQoS: Equatable, Sendable {
    /// The class of the service level.
    public let qosClass: QoSClass
    /// A priority within the class, from -15 (lowest) to 0; kept as given, also outside
    /// that range (see `init(qosClass:relativePriority:)`).
    public let relativePriority: Int

    /// Work the user does not see: maintenance, backups, prefetching.
    public static let background = DispatchQoS(qosClass: .background, relativePriority: 0)
    /// Long-running work the user knows of, such as a download.
    public static let utility = DispatchQoS(qosClass: .utility, relativePriority: 0)
    /// The default level, between user-initiated and utility.
    public static let `default` = DispatchQoS(qosClass: .default, relativePriority: 0)
    /// Work the user started and is waiting for.
    public static let userInitiated = DispatchQoS(qosClass: .userInitiated, relativePriority: 0)
    /// Work that keeps the interface responsive.
    public static let userInteractive = DispatchQoS(qosClass: .userInteractive, relativePriority: 0)
    /// No level given: the queue's or the caller's level applies.
    public static let unspecified = DispatchQoS(qosClass: .unspecified, relativePriority: 0)

    /// The service classes, from most to least important.
    public enum QoSClass: Sendable, Hashable {
        /// See `DispatchQoS.background`.
        case background
        /// See `DispatchQoS.utility`.
        case utility
        /// See `DispatchQoS.default`.
        case `default`
        /// See `DispatchQoS.userInitiated`.
        case userInitiated
        /// See `DispatchQoS.userInteractive`.
        case userInteractive
        /// See `DispatchQoS.unspecified`.
        case unspecified

        /// The pool band that runs work of this class.
        @usableFromInline
        var band: QoSBand {
            switch self {
            case .userInteractive: .userInteractive
            case .userInitiated: .userInitiated
            case .default, .unspecified: .default
            case .utility: .utility
            case .background: .background
            }
        }
    }

    /// A service level of a class with a relative priority, kept as given (as Dispatch's
    /// own struct does). Only -15...0 is valid: a queue made with a relative priority
    /// outside it gets no QoS of its own, as libdispatch's attribute call refuses it there
    /// (its `qos` then reads `.unspecified`, or its global target's QoS when it has one).
    public init(qosClass: QoSClass, relativePriority: Int) {
        self.qosClass = qosClass
        self.relativePriority = relativePriority
    }

    /// Whether the relative priority is in libdispatch's range, -15...0.
    var hasValidRelativePriority: Bool { (-15...0).contains(relativePriority) }
}

/// The pool's priority bands, most important first; a worker always takes work from the
/// most important non-empty band.
@usableFromInline
enum QoSBand: UInt8, CaseIterable, Sendable {
    case userInteractive = 0
    case userInitiated = 1
    case `default` = 2
    case utility = 3
    case background = 4

    /// The thread `nice` value for work of this band: libdispatch's values on Linux
    /// (`DISPATCH_NICE_*`), a larger CPU share for the two most important bands and a
    /// smaller one for utility and background. Below 0 needs privilege (CAP_SYS_NICE, or
    /// an RLIMIT_NICE that allows it): without it such work runs at 0, as with
    /// libdispatch (`Worker.moveNice`). libdispatch runs its user-interactive global
    /// queue's work at -2: on Linux that queue is its user-initiated one.
    var niceValue: Int32 {
        switch self {
        case .userInteractive: -4
        case .userInitiated: -2
        case .default: 0
        case .utility: 2
        case .background: 10
        }
    }

    /// The QoS class this band runs.
    var qosClass: DispatchQoS.QoSClass {
        switch self {
        case .userInteractive: .userInteractive
        case .userInitiated: .userInitiated
        case .default: .default
        case .utility: .utility
        case .background: .background
        }
    }
}
