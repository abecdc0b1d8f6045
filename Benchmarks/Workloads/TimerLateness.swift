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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

extension Catalog {
    /// How late `asyncAfter` timers fire: many timers armed at once, 50 µs apart.
    ///
    /// Lateness is measured on CLOCK_MONOTONIC against the deadline each timer asked for
    /// (relative to a start instant read from both clocks back to back). Wake-ups are the
    /// process's context switches (all threads, voluntary and involuntary, getrusage) from
    /// arming the first timer until the last has fired, per 1,000 timers: what coalescing
    /// timers is meant to save.
    static let timerLateness = Workload(
        name: "timer-lateness",
        summary: "2,000 asyncAfter timers 50 µs apart on a serial queue; lateness p50 and p99 in µs, context switches per 1,000 timers",
        metrics: [
            MetricSpec("p50", unit: .microseconds),
            MetricSpec("p99", unit: .microseconds),
            MetricSpec("wake-ups", unit: .switchesPerThousand),
        ]
    ) { context in
        let timers = context.size(2_000, quick: 500)
        let firstOffsetNs = 10_000_000  // leaves time to arm every timer before the first is due
        let spacingNs = 50_000
        let queue = DispatchQueue(label: "bench.timers")
        let firedAt = SlotBuffer<UInt64>(count: timers, initialValue: 0)
        let group = DispatchGroup()
        let switchesBefore = Machine.contextSwitches
        // The start instant is read from both clocks back to back, so the library's clock
        // call must not do first-call work in between: through a shared library the first
        // call of a symbol is bound lazily (about 4 µs under the drop-in library, which
        // made its timers look that much less late), so call it once before.
        _ = DispatchTime.now() + .nanoseconds(1)
        let start = DispatchTime.now()
        let startNs = BenchClock.now()
        for index in 0..<timers {
            group.enter()
            let offset = DispatchTimeInterval.nanoseconds(firstOffsetNs + index * spacingNs)
            queue.asyncAfter(deadline: start + offset) {
                firedAt[index] = BenchClock.now()
                group.leave()
            }
        }
        let waitSeconds = 30
        try check(
            group.wait(timeout: .now() + .seconds(waitSeconds)) == .success,
            "timer-lateness: not every timer fired within \(waitSeconds) s")
        let switches = Machine.contextSwitches - switchesBefore
        let lateness = firedAt.snapshot().enumerated().map { index, fired in
            Double(fired) - Double(startNs) - Double(firstOffsetNs + index * spacingNs)
        }
        let earliest = lateness.min() ?? 0
        try check(earliest > -100_000, "timer-lateness: a timer fired \(-earliest / 1e6) ms early")
        return [
            Statistics.percentile(lateness, 50) / 1e3,
            Statistics.percentile(lateness, 99) / 1e3,
            Double(switches) * 1000 / Double(timers),
        ]
    }
}
