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

/// The bits of a queue's one atomic state word.
///
/// | bits   | meaning                                                                 |
/// |--------|-------------------------------------------------------------------------|
/// | 0–23   | suspend count                                                           |
/// | 24     | inactive (created `.initiallyInactive`, not yet activated)              |
/// | 25     | enqueued: a drain is scheduled or running (a serial queue's drain lock) |
/// | 26     | dirty: something changed while enqueued; the drainer must look again   |
/// | 27     | barrier active: a barrier holds a concurrent queue alone                |
/// | 32–63  | width in use: items of a concurrent queue running now                   |
@usableFromInline
struct QueueState: Equatable {
    @usableFromInline var raw: UInt64

    init(raw: UInt64) { self.raw = raw }

    @usableFromInline static let suspendUnit: UInt64 = 1
    @usableFromInline static let suspendMask: UInt64 = 0xFF_FFFF
    @usableFromInline static let inactive: UInt64 = 1 << 24
    @usableFromInline static let enqueued: UInt64 = 1 << 25
    @usableFromInline static let dirty: UInt64 = 1 << 26
    @usableFromInline static let barrierActive: UInt64 = 1 << 27
    @usableFromInline static let runningUnit: UInt64 = 1 << 32

    var suspendCount: UInt64 { raw & Self.suspendMask }
    var isInactive: Bool { raw & Self.inactive != 0 }
    /// Suspended or inactive: nothing may start.
    var isStopped: Bool { raw & (Self.suspendMask | Self.inactive) != 0 }
    var isEnqueued: Bool { raw & Self.enqueued != 0 }
    var isDirty: Bool { raw & Self.dirty != 0 }
    var isBarrierActive: Bool { raw & Self.barrierActive != 0 }
    var runningCount: UInt64 { raw >> 32 }
}
