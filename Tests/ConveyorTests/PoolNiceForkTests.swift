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
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 11, finding 5 and the fork guard: both run in a child process.
@Suite struct PoolNiceForkTests {
    /// Run as an unprivileged user (the child drops root as `setpriv --reuid=nobody` would),
    /// one background job must not leave workers at nice 10 for later default and
    /// user-interactive work: a thread that raised its nice and cannot lower it leaves the
    /// pool. Exit code 0: all later work ran at nice 0; 2: skipped (printed reason).
    @Test func niceDoesNotStickWithoutPrivilege() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            guard dropRootToNobody() else {
                print("nice test skipped: cannot drop root to nobody")
                exit(0)
            }
            // Can this process lower a thread's nice once raised? Then the fault cannot show.
            let probe = DispatchSemaphore(value: 0)
            let privileged = AtomicFlagBox()
            startThread {
                _ = cnv_set_thread_nice(1)
                privileged.set(cnv_set_thread_nice(0) == 0)
                probe.signal()
            }
            probe.wait()
            if privileged.value {
                print("nice test skipped: this process may lower nice (CAP_SYS_NICE or RLIMIT_NICE)")
                exit(0)
            }
            let background = DispatchSemaphore(value: 0)
            DispatchQueue.global(qos: .background).async {
                print("background job at nice \(ThreadInfo.nice)")
                background.signal()
            }
            background.wait()
            var bad = 0
            for round in 0..<(20 * ThreadInfo.cpuCount) {
                let qos: DispatchQoS.QoSClass = round % 2 == 0 ? .default : .userInteractive
                let seen = NiceBox()
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global(qos: qos).async {
                    seen.value = ThreadInfo.nice
                    done.signal()
                }
                done.wait()
                if seen.value != 0 {
                    bad += 1
                    print("\(qos) job at nice \(seen.value)")
                }
                if round % 4 == 0 {
                    let again = DispatchSemaphore(value: 0)
                    DispatchQueue.global(qos: .background).async { again.signal() }
                    again.wait()
                }
            }
            print("later default/user-interactive jobs at nice > 0: \(bad) of \(20 * ThreadInfo.cpuCount)")
            exit(bad == 0 ? 0 : 1)
        }
        if let result { print(String(decoding: result.standardOutputContent, as: UTF8.self)) }
    }

    /// After fork() without exec, the child's pool has no threads: submitting work traps
    /// with a message instead of hanging.
    @Test func submittingInAForkedChildTraps() async {
        let result = await #expect(processExitsWith: .exitCode(3), observing: [\.standardErrorContent]) {
            let ready = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { ready.signal() }
            ready.wait()
            let pid = fork()
            if pid == 0 {
                // No crash backtracer in the grandchild: one was seen (under ASan) to
                // outlive it and keep the test runner's stdout open. The trap message is
                // printed before the trap, so stderr still carries it.
                signal(SIGILL, SIG_DFL)
                signal(SIGTRAP, SIG_DFL)
                let devNull = open("/dev/null", O_WRONLY)
                if devNull >= 0 { dup2(devNull, 1) }
                DispatchQueue.global().async {}
                _exit(0)
            }
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
            exit(signalled ? 3 : 0)
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("work submitted in the child of fork()"), "stderr was: \(stderr)")
    }
}

/// A value written by one thread and read after a semaphore hand-off.
private final class NiceBox: @unchecked Sendable { var value: Int32 = -1 }
private final class AtomicFlagBox: @unchecked Sendable {
    private(set) var value = false
    func set(_ flag: Bool) { value = flag }
}
