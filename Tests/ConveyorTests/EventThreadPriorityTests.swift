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

@testable import ConveyorCore
import CConveyor
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The event thread asks for libdispatch's user-interactive `nice` value, as its manager
/// thread has (`EventLoop.eventThreadNice`), and keeps 0 where the process may not lower
/// it; the pool threads it starts run work at 0 either way. In child processes: the first
/// timer of a fresh process is what starts the event thread and, from it, the first
/// worker (which must not keep the value it inherited).
@Suite struct EventThreadPriorityTests {
    @Test func theEventThreadRunsAtTheManagersNiceWherePermitted() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            exit(Self.checkNiceValues() ? 0 : 1)
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    @Test func withoutPrivilegeTheEventThreadStaysAtZeroAndTimersFire() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            guard dropRootToNobody() else {
                print("skipped: cannot drop root to nobody")
                exit(0)
            }
            exit(Self.checkNiceValues() ? 0 : 1)
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    /// Fires a timer whose job reads its thread's nice value, then reads the event
    /// thread's; returns whether both are what this process's privilege allows.
    private static func checkNiceValues() -> Bool {
        // What may this process do? A scratch thread tries the event thread's value.
        let probed = DispatchSemaphore(value: 0)
        let mayLower = Atomic<Bool>(false)
        startThread {
            mayLower.store(cnv_set_thread_nice(EventLoop.eventThreadNice) == 0, ordering: .relaxed)
            probed.signal()
        }
        probed.wait()
        let expected = mayLower.load(ordering: .relaxed) ? EventLoop.eventThreadNice : 0

        let jobNice = Atomic<Int32>(-100)
        let fired = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
            jobNice.store(ThreadInfo.nice, ordering: .relaxed)
            fired.signal()
        }
        guard fired.wait(timeout: .now() + .seconds(30)) == .success else {
            print("the timer did not fire")
            return false
        }
        guard let eventThread = processThreads().first(where: { $0.name == "conveyor.events" })?.id else {
            print("no thread named conveyor.events")
            return false
        }
        errno = 0
        let eventNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(eventThread))
        let job = jobNice.load(ordering: .relaxed)
        print("may lower nice: \(expected != 0); event thread at \(eventNice), the timer's job at \(job)")
        return eventNice == expected && job == 0
    }
}
