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
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// "Uncontended semaphore wait/signal makes no system call", proved with seccomp rather
/// than measured.
///
/// Each test runs in a child process. Its thread installs a seccomp filter that lets only
/// `exit` and `exit_group` through and kills the whole process (SIGSYS) on any other
/// system call *made by that thread*; then it runs the operations and calls `_exit(0)`.
/// A single futex call (or any other syscall, including a clock read that the vDSO
/// could not serve) in the loop ends the child with SIGSYS instead of exit code 0.
///
/// Why not `strace -c`: it needs an external tool, ptrace permission, and it sees every
/// thread of the test process, so it would have to separate the loop's calls from the
/// test runner's. Why not `getrusage` context switches: a futex wake with no sleeper is a
/// system call without a context switch, so that count would miss exactly the bug to
/// catch. The filter is exact, per thread, and needs only `prctl`, which unprivileged
/// processes may use after setting `no_new_privs`.
@Suite struct SyscallCountTests {
    /// The filter works: one `getppid()` under it kills the child with SIGSYS. Without
    /// this check, a filter that silently did nothing would make the test below pass.
    @Test(.enabled(if: seccompIsAvailable(), "this kernel has no seccomp"))
    func theFilterCatchesASingleSystemCall() async {
        await #expect(processExitsWith: .signal(SIGSYS)) {
            guard installSyscallTrap() else { _exit(3) }
            _ = getppid()
            _exit(0)
        }
    }

    @Test(.enabled(if: seccompIsAvailable(), "this kernel has no seccomp"),
          .disabled(if: isSanitized(), "a sanitizer's runtime makes system calls of its own"))
    func uncontendedSemaphoreAndGroupMakeNoSystemCall() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let binary = DispatchSemaphore(value: 1)
            let empty = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            // Deadlines are computed before the filter goes on: the fast paths must not
            // even read the clock.
            let timeout = DispatchTime.now() + .seconds(3_600)
            let wallTimeout = DispatchWallTime.now() + .seconds(3_600)
            func round() -> Bool {
                binary.wait()
                binary.signal()
                empty.signal()
                empty.wait()
                guard binary.wait(timeout: timeout) == .success else { return false }
                binary.signal()
                guard binary.wait(wallTimeout: wallTimeout) == .success else { return false }
                binary.signal()
                guard binary.wait(timeout: .now()) == .success else { return false }
                guard binary.signal() == 0 else { return false }
                group.enter()
                group.leave()
                return group.wait(timeout: timeout) == .success
            }
            _ = round()   // warm-up: any one-time lazy initialisation happens before the filter
            guard installSyscallTrap() else { exitReportingFailure("could not install the seccomp filter: errno \(errno)") }
            for _ in 0..<100_000 {
                // Under the filter only exit_group is allowed through: no report, exit code 4.
                if !round() { _exit(4) }
            }
            _exit(0)
        }
        // A system call in the loop ends the child with SIGSYS (the issue says so).
        expectNoFailureReport(result)
    }
}

/// Whether this process runs under ThreadSanitizer or AddressSanitizer (a runtime is linked in).
func isSanitized() -> Bool {
    dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
}

/// Whether the kernel supports seccomp filters (the "Seccomp:" line in /proc/self/status).
func seccompIsAvailable() -> Bool {
    readTextFile("/proc/self/status")?.contains("Seccomp:") ?? false
}

/// Installs, on the calling thread only, a seccomp filter that allows `exit` and
/// `exit_group` and kills the process on any other system call. Returns false if the
/// kernel refused it.
func installSyscallTrap() -> Bool {
    #if arch(x86_64)
    let auditArch: UInt32 = 0xC000_003E, exitCall: UInt32 = 60, exitGroupCall: UInt32 = 231
    #elseif arch(arm64)
    let auditArch: UInt32 = 0xC000_00B7, exitCall: UInt32 = 93, exitGroupCall: UInt32 = 94
    #else
    return false
    #endif
    // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
    let load: UInt16 = 0x20     // BPF_LD | BPF_W | BPF_ABS
    let jumpIfEqual: UInt16 = 0x15   // BPF_JMP | BPF_JEQ | BPF_K
    let ret: UInt16 = 0x06      // BPF_RET | BPF_K
    let killProcess: UInt32 = 0x8000_0000, allow: UInt32 = 0x7FFF_0000
    let program: [(UInt16, UInt8, UInt8, UInt32)] = [
        (load, 0, 0, 4),                        // 0: A = seccomp_data.arch
        (jumpIfEqual, 1, 0, auditArch),         // 1: native arch? go to 3
        (ret, 0, 0, killProcess),               // 2
        (load, 0, 0, 0),                        // 3: A = seccomp_data.nr
        (jumpIfEqual, 2, 0, exitGroupCall),     // 4: exit_group? go to 7
        (jumpIfEqual, 1, 0, exitCall),          // 5: exit? go to 7
        (ret, 0, 0, killProcess),               // 6: anything else kills the process
        (ret, 0, 0, allow),                     // 7
    ]
    let filter = UnsafeMutableRawPointer.allocate(byteCount: program.count * 8, alignment: 8)
    for (index, (code, jt, jf, k)) in program.enumerated() {
        filter.storeBytes(of: code, toByteOffset: index * 8, as: UInt16.self)
        filter.storeBytes(of: jt, toByteOffset: index * 8 + 2, as: UInt8.self)
        filter.storeBytes(of: jf, toByteOffset: index * 8 + 3, as: UInt8.self)
        filter.storeBytes(of: k, toByteOffset: index * 8 + 4, as: UInt32.self)
    }
    // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    let fprog = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
    fprog.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
    fprog.storeBytes(of: UInt16(program.count), toByteOffset: 0, as: UInt16.self)
    fprog.storeBytes(of: UInt(bitPattern: filter), toByteOffset: 8, as: UInt.self)
    // prctl is variadic in C, so Swift cannot call it directly; take it from the C library
    // with a fixed five-argument signature (what the kernel reads on every ABI we build for).
    typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    guard let symbol = dlsym(nil, "prctl") else { return false }
    let prctl = unsafeBitCast(symbol, to: Prctl.self)
    let PR_SET_NO_NEW_PRIVS: Int32 = 38, PR_SET_SECCOMP: Int32 = 22, SECCOMP_MODE_FILTER: UInt = 2
    guard prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 else { return false }
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, UInt(bitPattern: fprog), 0, 0) == 0
}
