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

// Issue 11, findings 2-5: how the pool sizes itself, places a post from a busy worker,
// orders QoS bands, and leaves nice values behind.
#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum PoolScenarios {
    /// Finding 2: `tasks` CPU-bound tasks of `milliseconds` each on `global()`. Reports the
    /// thread count at 250/500/750/1000 ms and its peak over the whole run.
    static func cpuBurst(tasks: Int, milliseconds: Double) {
        let group = DispatchGroup()
        let start = nowNanoseconds()
        for _ in 0..<tasks {
            DispatchQueue.global().async(group: group) { compute(milliseconds: milliseconds) }
        }
        var peak = 0
        var marks: [Int: Int] = [:]
        while group.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
            let threads = threadCount()
            peak = max(peak, threads)
            let elapsed = Int((nowNanoseconds() - start) / 1_000_000)
            for mark in [250, 500, 750, 1000] where elapsed >= mark && marks[mark] == nil {
                marks[mark] = threads
            }
        }
        for mark in [250, 500, 750, 1000] {
            if let threads = marks[mark] { report("cpu-burst threads at \(mark) ms", Double(threads), "threads") }
        }
        report("cpu-burst peak threads", Double(peak), "threads")
    }

    /// Finding 3: a task on a global queue posts to an idle serial queue, then computes for
    /// 300 ms. Reports how long the post waited to start (median and worst of `rounds`).
    static func postFromBusyWorker(rounds: Int) {
        var latencies: [Double] = []
        for round in 0..<rounds {
            let serial = DispatchQueue(label: "post-target-\(round)")
            let done = DispatchSemaphore(value: 0)
            let latency = Atomic<UInt64>(0)
            DispatchQueue.global().async {
                let postedAt = nowNanoseconds()
                serial.async { latency.store(nowNanoseconds() - postedAt, ordering: .releasing) }
                compute(milliseconds: 300)
                done.signal()
            }
            done.wait()
            // The post may still be waiting when the poster finishes (that is the fault).
            while latency.load(ordering: .acquiring) == 0 { usleep(100) }
            latencies.append(Double(latency.load(ordering: .acquiring)) / 1e6)
        }
        latencies.sort()
        report("post-latency median", latencies[latencies.count / 2], "ms")
        report("post-latency worst", latencies.last!, "ms")
    }

    /// Finding 4: default-QoS work fed without end from a thread outside the pool; reports
    /// how long a background task then waits to start (gives up at 5 s).
    static func backgroundStart() {
        let stop = Atomic<Bool>(false)
        let backlog = Atomic<Int>(0)
        let feederDone = DispatchSemaphore(value: 0)
        startThread {
            while !stop.load(ordering: .acquiring) {
                if backlog.load(ordering: .relaxed) < 1_000 {
                    backlog.wrappingAdd(1, ordering: .relaxed)
                    DispatchQueue.global().async {
                        backlog.wrappingSubtract(1, ordering: .relaxed)
                        compute(milliseconds: 0.05)
                    }
                } else {
                    sched_yield()
                }
            }
            feederDone.signal()
        }
        compute(milliseconds: 50)   // let the load settle
        let started = DispatchSemaphore(value: 0)
        let submittedAt = nowNanoseconds()
        let startedAt = Atomic<UInt64>(0)
        DispatchQueue.global(qos: .background).async {
            startedAt.store(nowNanoseconds(), ordering: .releasing)
            started.signal()
        }
        let result = started.wait(timeout: .now() + .seconds(5))
        stop.store(true, ordering: .releasing)
        feederDone.wait()
        if result == .success {
            report("background-start", Double(startedAt.load(ordering: .acquiring) - submittedAt) / 1e6, "ms")
        } else {
            report("background-start", "not-within-5s")
        }
    }

    /// Finding 5: run as an unprivileged user (root drops to nobody first), one background
    /// job, then default and user-interactive jobs (40 each, a background job every fourth).
    /// Reports how many of the later jobs ran at a nice value above 0.
    static func niceAfterBackground() {
        if geteuid() == 0 {
            _ = setgroups(0, nil)
            guard setgid(65534) == 0, setuid(65534) == 0 else {
                report("nice later jobs above 0", "cannot-drop-root")
                return
            }
        }
        let background = DispatchSemaphore(value: 0)
        let backgroundNice = Atomic<Int32>(0)
        DispatchQueue.global(qos: .background).async {
            backgroundNice.store(threadNice(), ordering: .relaxed)
            background.signal()
        }
        background.wait()
        var raised = 0
        let jobs = 80
        for round in 0..<jobs {
            let qos: DispatchQoS.QoSClass = round % 2 == 0 ? .default : .userInteractive
            let seen = Atomic<Int32>(0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global(qos: qos).async {
                seen.store(threadNice(), ordering: .relaxed)
                done.signal()
            }
            done.wait()
            if seen.load(ordering: .relaxed) > 0 { raised += 1 }
            if round % 4 == 0 {
                let again = DispatchSemaphore(value: 0)
                DispatchQueue.global(qos: .background).async { again.signal() }
                again.wait()
            }
        }
        report("nice of the background job", Double(backgroundNice.load(ordering: .relaxed)), "nice")
        report("nice later jobs above 0", Double(raised), "of \(jobs)")
    }
}
