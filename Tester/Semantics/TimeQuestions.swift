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

/// `DispatchTime`, `DispatchWallTime`, `DispatchTimeInterval` and `DispatchQoS`: values,
/// arithmetic at the edges, comparisons.
enum TimeQuestions {
    static func ask() {
        let base = DispatchTime(uptimeNanoseconds: 1_000)
        answer("time.distantFuture.uptime", DispatchTime.distantFuture.uptimeNanoseconds)
        answer("time.uptime(0)", DispatchTime(uptimeNanoseconds: 0).uptimeNanoseconds)
        answer("time.uptime(1)", DispatchTime(uptimeNanoseconds: 1).uptimeNanoseconds)
        answer("time.uptime(max) is distantFuture", DispatchTime(uptimeNanoseconds: .max) == .distantFuture)
        answer("time.uptime(12345).rawValue", DispatchTime(uptimeNanoseconds: 12_345).rawValue)
        answer("time.distantFuture.rawValue", DispatchTime.distantFuture.rawValue)
        answer("time + seconds(2)", (base + .seconds(2)).uptimeNanoseconds)
        answer("time + 1.5", (base + 1.5).uptimeNanoseconds)
        answer("time + milliseconds(3)", (base + .milliseconds(3)).uptimeNanoseconds)
        answer("time + microseconds(3)", (base + .microseconds(3)).uptimeNanoseconds)
        answer("time + nanoseconds(3)", (base + .nanoseconds(3)).uptimeNanoseconds)
        answer("time + -0.5", (base + -0.5).uptimeNanoseconds)
        answer("time - 0.5", (base - 0.5).uptimeNanoseconds)
        answer("time - microseconds(10)", (base - .microseconds(10)).uptimeNanoseconds)
        answer("time - nanoseconds(1000)", (base - .nanoseconds(1_000)).uptimeNanoseconds)
        answer("time - nanoseconds(999)", (base - .nanoseconds(999)).uptimeNanoseconds)
        answer("time + never is distantFuture", base + .never == .distantFuture)
        answer("time - never", (base - .never).uptimeNanoseconds)
        answer("time + seconds(Int.max) is distantFuture", base + .seconds(.max) == .distantFuture)
        answer("time + infinity is distantFuture", base + .infinity == .distantFuture)
        answer("time + -infinity", (base + -Double.infinity).uptimeNanoseconds)
        answer("time + 1e30 is distantFuture", base + 1e30 == .distantFuture)
        answer("distantFuture + 1 is distantFuture", DispatchTime.distantFuture + 1.0 == .distantFuture)
        answer("distantFuture - 1 is distantFuture", DispatchTime.distantFuture - 1.0 == .distantFuture)
        answer("distantFuture - seconds(1) is distantFuture", DispatchTime.distantFuture - .seconds(1) == .distantFuture)
        answer("time 1 < time 2", DispatchTime(uptimeNanoseconds: 1) < DispatchTime(uptimeNanoseconds: 2))
        answer("time 2 == time 2", DispatchTime(uptimeNanoseconds: 2) == DispatchTime(uptimeNanoseconds: 2))
        answer("now < distantFuture", DispatchTime.now() < .distantFuture)
        answer("now <= now later", { let a = DispatchTime.now(); return a <= DispatchTime.now() }())

        answer("interval seconds(1) == milliseconds(1000)", DispatchTimeInterval.seconds(1) == .milliseconds(1_000))
        answer("interval microseconds(1) == nanoseconds(1000)", DispatchTimeInterval.microseconds(1) == .nanoseconds(1_000))
        answer("interval never == never", DispatchTimeInterval.never == .never)
        answer("interval seconds(1) == never", DispatchTimeInterval.seconds(1) == .never)
        answer("interval seconds(0) == nanoseconds(0)", DispatchTimeInterval.seconds(0) == .nanoseconds(0))
        answer("interval milliseconds(Int.max) == never", DispatchTimeInterval.milliseconds(.max) == .never)
        answer("interval description", "\(DispatchTimeInterval.seconds(3)) \(DispatchTimeInterval.never)")

        let hundred = DispatchWallTime(timespec: timespec(tv_sec: 100, tv_nsec: 5))
        answer("wall distantFuture.rawValue", DispatchWallTime.distantFuture.rawValue)
        answer("wall timespec(100 s, 5 ns).rawValue", hundred.rawValue)
        answer("wall timespec(0, 0).rawValue", DispatchWallTime(timespec: timespec(tv_sec: 0, tv_nsec: 0)).rawValue)
        answer("wall + 1.5", (hundred + 1.5).rawValue)
        answer("wall + seconds(2)", (hundred + .seconds(2)).rawValue)
        answer("wall - 200.0", (hundred - 200.0).rawValue)
        answer("wall - seconds(1)", (hundred - .seconds(1)).rawValue)
        answer("wall + never is distantFuture", hundred + .never == .distantFuture)
        answer("wall + infinity is distantFuture", hundred + .infinity == .distantFuture)
        answer("wall 100 < wall 200", hundred < DispatchWallTime(timespec: timespec(tv_sec: 200, tv_nsec: 0)))
        answer("wall 200 < wall 100", DispatchWallTime(timespec: timespec(tv_sec: 200, tv_nsec: 0)) < hundred)
        answer("wall now < distantFuture", DispatchWallTime.now() < .distantFuture)
        answer("wall distantFuture - 1 is distantFuture", DispatchWallTime.distantFuture - 1.0 == .distantFuture)

        let classes: [(String, DispatchQoS.QoSClass)] = [
            ("background", .background), ("utility", .utility), ("default", .default),
            ("userInitiated", .userInitiated), ("userInteractive", .userInteractive), ("unspecified", .unspecified),
        ]
        for (name, qosClass) in classes {
            answer("qos class \(name) description", qosClass)
        }
        answer("qos .utility == (utility, 0)", DispatchQoS.utility == DispatchQoS(qosClass: .utility, relativePriority: 0))
        answer("qos (utility, -5) == .utility", DispatchQoS(qosClass: .utility, relativePriority: -5) == .utility)
        answer("qos (utility, -5).relativePriority", DispatchQoS(qosClass: .utility, relativePriority: -5).relativePriority)
        answer("qos (utility, -20).relativePriority", DispatchQoS(qosClass: .utility, relativePriority: -20).relativePriority)
        answer("qos (utility, 3).relativePriority", DispatchQoS(qosClass: .utility, relativePriority: 3).relativePriority)
        answer("qos (utility, 3) == .utility", DispatchQoS(qosClass: .utility, relativePriority: 3) == .utility)
        answer("qos default.qosClass", DispatchQoS.default.qosClass)
        answer("qos unspecified.qosClass", DispatchQoS.unspecified.qosClass)
        answer("qos userInteractive.qosClass", DispatchQoS.userInteractive.qosClass)
    }
}
