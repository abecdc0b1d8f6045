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

import Conveyor
#if canImport(Glibc)
import Glibc
#endif

/// Starts the runtime's lazily made parts (workers, the event thread and its fds) so the
/// baseline taken afterwards already includes them.
func warmUp() {
    let done = DispatchSemaphore(value: 0)
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.setEventHandler { done.signal() }
    timer.schedule(deadline: .now())
    timer.activate()
    _ = done.wait(timeout: .now() + .seconds(10))
    timer.cancel()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { done.signal() }
    _ = done.wait(timeout: .now() + .seconds(10))
    let user = DispatchSource.makeUserDataAddSource(queue: .global())
    user.setEventHandler { done.signal() }
    user.activate()
    user.add(data: 1)
    _ = done.wait(timeout: .now() + .seconds(10))
    user.cancel()
}

/// Compares threads, fds and RSS after the run with the baseline.
///
/// Threads: Conveyor's idle workers (compensating threads included) exit after 10 s, so
/// right after the run up to one per CPU (plus a few service threads) may remain; the run
/// ends with a quiet phase without blocking tasks so that extra threads have retired by
/// then. With `waitForIdleWorkers` the check waits for the count to come back to the
/// baseline plus two. Fds must come back to the
/// baseline (a little slack for a descriptor being closed). RSS may grow (caches,
/// allocator arenas) but within a generous bound.
struct BaselineCheck {
    let before: ProcessStats
    let waitForIdleWorkers: Bool
    let idleWaitSeconds: Double

    struct Outcome {
        var after: ProcessStats
        var report: [String]
        var ok: Bool
    }

    func verify() -> Outcome {
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let looseThreads = before.threads + cpus + 4
        let tightThreads = before.threads + 2
        let threadBound = waitForIdleWorkers ? tightThreads : looseThreads
        let fdBound = before.fds + 2
        let rssBound = max(before.rssBytes * 3, before.rssBytes + 96 << 20)
        // Wait (bounded) for threads and fds to settle.
        let start = DispatchTime.now()
        let end = start + .nanoseconds(Int(idleWaitSeconds * 1e9))
        var after = ProcessStats.current()
        while (after.threads > threadBound || after.fds > fdBound) && DispatchTime.now() < end {
            usleep(100_000)
            after = ProcessStats.current()
        }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        var report = ["waited \(format2(waited)) s for threads and fds to settle"]
        var ok = true
        func judge(_ held: Bool, _ text: String) {
            report.append((held ? "ok:   " : "FAIL: ") + text)
            ok = ok && held
        }
        judge(after.threads <= threadBound, "threads \(after.threads) <= \(threadBound) (baseline \(before.threads)\(waitForIdleWorkers ? " + 2, idle workers gone" : " + \(cpus) CPUs + 4"))")
        judge(after.fds <= fdBound, "fds \(after.fds) <= \(fdBound) (baseline \(before.fds) + 2)")
        judge(after.rssBytes <= rssBound, "RSS \(after.rssBytes / 1024) KiB <= \(rssBound / 1024) KiB")
        return Outcome(after: after, report: report, ok: ok)
    }
}

/// Formats seconds with two decimals (no Foundation).
func format2(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
