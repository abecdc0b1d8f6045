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
import Conveyor
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The main queue needs a process whose real main thread serves it; a test body never runs
/// on the test process's main thread, so these tests run the `conveyor-main-queue-probe`
/// program (built beside the test bundle) and check how it ends.
@Suite struct MainQueueTests {
    @Test func dispatchMainRunsTheMainQueueOnTheMainThread() throws {
        let outcome = try runProbe("dispatch-main")
        #expect(outcome.status == 42, "stderr: \(outcome.stderr)")
    }

    @Test func aHostLoopCanDrainTheMainQueue() throws {
        let outcome = try runProbe("host-loop")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func theMainThreadIsBoundToTheMainQueueOutsideItsBlocks() throws {
        let outcome = try runProbe("main-thread-bound")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func notOnQueueMainTrapsOnTheMainThread() throws {
        let outcome = try runProbe("not-on-main-traps")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("running on queue 'com.apple.main-thread'"), "stderr: \(outcome.stderr)")
    }

    @Test func mainActorWorkAndMainQueueBlocksShareTheMainThreadUnderDispatchMain() throws {
        let outcome = try runProbe("main-actor")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func mainActorJobsAndMainQueueBlocksRunInSubmissionOrder() throws {
        let outcome = try runProbe("main-actor-order")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func aHostLoopRunsMainActorWork() throws {
        let outcome = try runProbe("host-loop-main-actor")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func dispatchMainAlsoServesTheToolchainsMainQueue() throws {
        let outcome = try runProbe("foreign-main-queue")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func anAsyncMainServesTheMainQueue() throws {
        let outcome = try runProbe(nil, program: "conveyor-async-main-probe")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test(arguments: ["async", "sync-from-worker", "queue-targeting-main", "main-actor", "stop-during-repeating-timer",
                      "one-turn-runs-all-queued"])
    func foundationsRunLoopServesTheMainQueue(mode: String) throws {
        let outcome = try runProbe(mode, program: "conveyor-runloop-probe")
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
    }

    @Test func syncOnAQueueTargetingMainFromTheMainThreadTraps() throws {
        let outcome = try runProbe("sync-through-main")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("through its target 'com.apple.main-thread'"), "stderr: \(outcome.stderr)")
    }

    @Test func mainQueueSyncFromTheMainThreadTraps() throws {
        let outcome = try runProbe("sync-on-main")
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("sync called on the main queue from the main thread"))
    }
}

struct ProbeOutcome {
    var status: Int32
    var stderr: String
}

struct ProbeError: Error { var message: String }

/// The folder the test bundle was built in (.build/<triple>/<config>), where the probe
/// programs and the modules are.
func testBuildDirectory() throws -> String {
    var exe = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &exe, exe.count - 1)
    guard length > 0 else { throw ProbeError(message: "readlink failed") }
    var directory = String(decoding: exe[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The test bundle is .build/<triple>/<config>/ConveyorPackageTests.xctest (a file on Linux).
    while !directory.hasSuffix(".xctest"), let slash = directory.lastIndex(of: "/") {
        directory = String(directory[..<slash])
        if directory.isEmpty { break }
    }
    guard let slash = directory.lastIndex(of: "/") else { throw ProbeError(message: "no .xctest in the test's path") }
    return String(directory[..<slash])
}

/// Runs a probe program (built beside the test bundle; by default
/// `conveyor-main-queue-probe`) with one argument (or `arguments`), waits at most
/// `timeoutSeconds` (60 s), and returns its exit status (128 + signal when killed; -1 when
/// it was killed for taking too long) and standard error.
func runProbe(_ mode: String?, program: String = "conveyor-main-queue-probe", arguments extra: [String] = [],
              timeoutSeconds: Int = 60) throws -> ProbeOutcome {
    let probe = try testBuildDirectory() + "/" + program
    guard access(probe, X_OK) == 0 else { throw ProbeError(message: "probe not built at \(probe)") }

    // Close-on-exec, so that programs other tests start meanwhile do not inherit the
    // write end and keep the pipe open after the probe has exited.
    var pipeFDs: [Int32] = [0, 0]
    guard cnv_pipe2(&pipeFDs, 0) == 0 else { throw ProbeError(message: "pipe2 failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
    posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
    var pid: pid_t = 0
    let arguments = [probe] + (mode.map { [$0] } ?? []) + extra
    var argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let rc = posix_spawn(&pid, probe, &actions, nil, &argv, environ)
    close(pipeFDs[1])
    guard rc == 0 else { close(pipeFDs[0]); throw ProbeError(message: "posix_spawn failed: \(rc)") }

    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let end = DispatchTime.now() + .seconds(timeoutSeconds)
    var status: Int32 = 0
    var finished = false
    while DispatchTime.now() < end {
        var request = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
        if poll(&request, 1, 100) > 0 {
            let n = read(pipeFDs[0], &buffer, buffer.count)
            if n > 0 { output += buffer[0..<n]; continue }
        }
        if waitpid(pid, &status, WNOHANG) == pid { finished = true; break }
    }
    if !finished {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
    _ = fcntl(pipeFDs[0], F_SETFL, O_NONBLOCK)   // take what is there; never wait here
    while true {
        let n = read(pipeFDs[0], &buffer, buffer.count)
        if n <= 0 { break }
        output += buffer[0..<n]
    }
    close(pipeFDs[0])
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return ProbeOutcome(status: finished ? exitStatus : -1, stderr: String(decoding: output, as: UTF8.self))
}
