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

/// A serial dispatch queue that is also a Swift `SerialExecutor`: an actor can run on it.
///
/// ```swift
/// actor Cache {
///     let queue = DispatchSerialQueue(label: "cache")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }
/// }
/// ```
/// The actor's methods then run on the queue, in FIFO order with the queue's other blocks
/// and never at the same time as them; inside a block submitted to the queue,
/// `cache.assumeIsolated { }` holds, and inside an actor method
/// `dispatchPrecondition(condition: .onQueue(queue))` holds. (Apple's Dispatch has the same
/// class; the toolchain's Dispatch for Linux has none.) The main queue is one too.
public final class DispatchSerialQueue: DispatchQueue, SerialExecutor, @unchecked Sendable {
    /// Creates a serial queue.
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - qos: The quality of service of the queue's work.
    ///   - autoreleaseFrequency: Accepted for compatibility; no effect on Linux.
    ///   - target: The queue that runs this queue's work; by default the global queue of
    ///     the queue's QoS.
    public init(
        label: String, qos: DispatchQoS = .unspecified,
        autoreleaseFrequency: AutoreleaseFrequency = .inherit, target: DispatchQueue? = nil
    ) {
        super.init(label: label, qos: qos, attributes: [], autoreleaseFrequency: autoreleaseFrequency, target: target)
    }

    /// The main queue.
    override init(specialLabel: String, kind: Kind, band: QoSBand, overcommit: Bool = false) {
        super.init(specialLabel: specialLabel, kind: kind, band: band, overcommit: overcommit)
    }

    /// Traps unless the calling code runs on this queue (a block or actor job of this
    /// queue, or of a queue that targets it; on the main thread for the main queue).
    public func checkIsolated() {
        if !isRunning(on: self, exclusively: false) {
            fatalError("Conveyor: the calling code is not isolated to serial queue '\(label)'")
        }
    }

    /// Whether the calling code runs on this queue (what `checkIsolated()` checks).
    public func isIsolatingCurrentContext() -> Bool? {
        isRunning(on: self, exclusively: false)
    }
}

/// A concurrent dispatch queue, as its own type (Apple's Dispatch has the same class);
/// `DispatchQueue(label:attributes: .concurrent)` makes the same kind of queue.
public final class DispatchConcurrentQueue: DispatchQueue, @unchecked Sendable {
    /// Creates a concurrent queue.
    /// - Parameters:
    ///   - label: A name for debugging.
    ///   - qos: The quality of service of the queue's work.
    ///   - autoreleaseFrequency: Accepted for compatibility; no effect on Linux.
    ///   - target: The queue that runs this queue's work; by default the global queue of
    ///     the queue's QoS.
    public init(
        label: String, qos: DispatchQoS = .unspecified,
        autoreleaseFrequency: AutoreleaseFrequency = .inherit, target: DispatchQueue? = nil
    ) {
        super.init(label: label, qos: qos, attributes: .concurrent, autoreleaseFrequency: autoreleaseFrequency, target: target)
    }
}
