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
#if canImport(Glibc)
import Glibc
#endif

/// Timer sources at the edges of `schedule`: intervals of zero, deadlines in the past,
/// schedules changed while armed. Answers count fires in windows long enough that a
/// timer that repeats is seen to, and give counts above five as "more than 5".
enum TimerQuestions {
    /// How many times a timer scheduled by `schedule` fired within `milliseconds` (the sum
    /// of its events' data, however they coalesced), and with `firstData` the data of its
    /// first event; counts above five read "more than 5".
    static func fires(within milliseconds: Int, firstData: Bool = false, _ schedule: (any DispatchSourceTimer) -> Void) -> String {
        let queue = DispatchQueue(label: "timer questions")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let log = EventLog()
        // The toolchain's source types are not Sendable (Conveyor's are).
        final class Box: @unchecked Sendable { let timer: any DispatchSourceTimer; init(_ timer: any DispatchSourceTimer) { self.timer = timer } }
        let box = Box(timer)
        timer.setEventHandler { log.append("\(box.timer.data)") }
        schedule(timer)
        timer.activate()
        usleep(useconds_t(milliseconds * 1_000))
        timer.cancel()
        queue.sync {}
        let values = log.values
        func bounded(_ count: Int) -> String { count > 5 ? "more than 5" : "\(count)" }
        let counts = values.map { Int($0) ?? -1 }
        let first = firstData ? ", first data \(counts.first.map(bounded) ?? "none")" : ""
        return "fired \(bounded(counts.reduce(0, +)))\(first)"
    }

    static func ask() {
        answer("timer repeating .never", fires(within: 30) { $0.schedule(deadline: .now(), repeating: .never) })
        answer("timer repeating .seconds(0)", fires(within: 30) { $0.schedule(deadline: .now(), repeating: .seconds(0)) })
        answer("timer repeating 0.0", fires(within: 30) { $0.schedule(deadline: .now(), repeating: 0.0) })
        // Not asked: `repeating: -1.0`, which the toolchain's overlay traps on (Conveyor
        // takes it as a one-shot timer).
        answer("timer repeating 1 ms", fires(within: 40) { $0.schedule(deadline: .now(), repeating: .milliseconds(1)) })
        answer("timer started 100 ms ago, repeating 10 ms", fires(within: 5, firstData: true) {
            $0.schedule(deadline: .now() - .milliseconds(100), repeating: .milliseconds(10))
        })
        answer("timer started 100 ms ago, one shot", fires(within: 5, firstData: true) { $0.schedule(deadline: .now() - .milliseconds(100)) })
        answer("timer moved from 10 ms to distantFuture", fires(within: 40) {
            $0.schedule(deadline: .now() + .milliseconds(10))
            $0.schedule(deadline: .distantFuture)
        })
        answer("timer wall deadline 100 ms ago, repeating 10 ms", fires(within: 5, firstData: true) {
            $0.schedule(wallDeadline: .now() - .milliseconds(100), repeating: .milliseconds(10))
        })
        answer("timer never scheduled", fires(within: 30) { _ in })
        answer("timer at distantFuture repeating 1 ms", fires(within: 30) { $0.schedule(deadline: .distantFuture, repeating: .milliseconds(1)) })
    }
}
