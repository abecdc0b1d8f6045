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
/// schedules changed while armed. No answer depends on how soon a timer fires (the suite
/// runs on busy machines): a timer that must fire is waited for up to 5 s, and one that
/// must not is watched for 30 ms, which no scheduling delay can turn into a fire.
enum TimerQuestions {
    /// The toolchain's source types are not Sendable (Conveyor's are).
    final class Box: @unchecked Sendable { let timer: any DispatchSourceTimer; init(_ timer: any DispatchSourceTimer) { self.timer = timer } }

    static func bounded(_ count: Int) -> String { count > 5 ? "more than 5" : "\(count)" }

    /// A timer scheduled by `schedule`, activated: whether it fired (waited for up to 5 s)
    /// and fired again (waited for up to 5 s when `repeats`, watched for 30 ms otherwise),
    /// and with `firstData` the data of its first event (asked only where no delay changes
    /// it: a one-shot timer's 1, or the fires a timer started long ago missed).
    static func firing(repeats: Bool, firstData: Bool = false, _ schedule: (any DispatchSourceTimer) -> Void) -> String {
        let queue = DispatchQueue(label: "timer questions")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let log = EventLog()
        let box = Box(timer)
        timer.setEventHandler { log.append("\(box.timer.data)") }
        schedule(timer)
        timer.activate()
        defer {
            timer.cancel()
            queue.sync {}
        }
        guard let first = log.await(1).first.flatMap({ Int($0) }) else { return "no event in 5 s" }
        var fires = first
        let deadline = DispatchTime.now() + (repeats ? 5 : 0.03)
        while fires < 2, log.changed.wait(timeout: deadline) == .success {
            fires = log.values.compactMap { Int($0) }.reduce(0, +)
        }
        return (firstData ? "first data \(bounded(first)), " : "fired, ") + (fires >= 2 ? "fired again" : "no second fire")
    }

    /// A timer scheduled by `schedule`, activated, watched for 30 ms: whether it fired.
    static func quiet(_ schedule: (any DispatchSourceTimer) -> Void) -> String {
        let queue = DispatchQueue(label: "timer questions")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let log = EventLog()
        timer.setEventHandler { log.append("fired") }
        schedule(timer)
        timer.activate()
        let fired = log.changed.wait(timeout: .now() + 0.03) == .success
        timer.cancel()
        queue.sync {}
        return fired ? "fired" : "no event in 30 ms"
    }

    static func ask() {
        answer("timer repeating .never", firing(repeats: false, firstData: true) { $0.schedule(deadline: .now(), repeating: .never) })
        answer("timer repeating .seconds(0)", firing(repeats: true) { $0.schedule(deadline: .now(), repeating: .seconds(0)) })
        answer("timer repeating 0.0", firing(repeats: true) { $0.schedule(deadline: .now(), repeating: 0.0) })
        // Not asked: `repeating: -1.0`, which the toolchain's overlay traps on (Conveyor
        // takes it as a one-shot timer).
        answer("timer repeating 1 ms", firing(repeats: true) { $0.schedule(deadline: .now(), repeating: .milliseconds(1)) })
        answer("timer started 100 ms ago, repeating 10 ms", firing(repeats: true, firstData: true) {
            $0.schedule(deadline: .now() - .milliseconds(100), repeating: .milliseconds(10))
        })
        answer("timer started 100 ms ago, one shot", firing(repeats: false, firstData: true) { $0.schedule(deadline: .now() - .milliseconds(100)) })
        answer("timer wall deadline 100 ms ago, repeating 10 ms", firing(repeats: true, firstData: true) {
            $0.schedule(wallDeadline: .now() - .milliseconds(100), repeating: .milliseconds(10))
        })
        answer("timer moved from 10 ms to distantFuture", quiet {
            $0.schedule(deadline: .now() + .milliseconds(10))
            $0.schedule(deadline: .distantFuture)
        })
        answer("timer never scheduled", quiet { _ in })
        answer("timer at distantFuture repeating 1 ms", quiet { $0.schedule(deadline: .distantFuture, repeating: .milliseconds(1)) })
    }
}
