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

/// The two kernel clocks behind `DispatchTime` (monotonic) and `DispatchWallTime` (real time).
@usableFromInline
enum Clock {
    /// Nanoseconds on `CLOCK_MONOTONIC`; the basis of `DispatchTime.uptimeNanoseconds`.
    @inlinable static func monotonicNanoseconds() -> UInt64 { cnv_monotonic_ns() }
    /// Nanoseconds since the Unix epoch on `CLOCK_REALTIME`.
    @inlinable static func realtimeNanoseconds() -> UInt64 { cnv_realtime_ns() }
    /// CPU time (user + system) this process has used.
    static func processCPUNanoseconds() -> UInt64 { cnv_process_cpu_ns() }
}
