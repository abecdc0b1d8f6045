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
#if canImport(Glibc)
import Glibc
#endif

/// The one place that turns a failed system call into a message: the runtime cannot go on
/// without its threads and kernel objects, so a failure here is fatal and says why.
@usableFromInline
enum SystemCall {
    /// Returns `result` unless it is -1, in which case it traps naming the call and errno.
    @discardableResult
    static func check(_ result: Int32, _ what: StaticString, file: StaticString = #fileID, line: UInt = #line) -> Int32 {
        if result == -1 {
            let code = cnv_errno()
            fatalError("Conveyor: \(what) failed: \(errorDescription(code)) (errno \(code))", file: file, line: line)
        }
        return result
    }

    /// The C library's text for an errno value.
    static func errorDescription(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The current errno value.
    static var errno: Int32 { cnv_errno() }
}

/// Facts about the machine and the calling thread.
@usableFromInline
enum ThreadInfo {
    /// CPUs in this process's affinity mask (what `taskset` allows), at least 1.
    static var cpuCount: Int { Int(cnv_cpu_count()) }
    /// Whether the caller is the process's main thread.
    static var isMainThread: Bool { cnv_is_main_thread() != 0 }
    /// The kernel thread id of the caller.
    static var currentID: Int32 { cnv_gettid() }
    /// Threads in this process now (from /proc), or -1 when unknown.
    static var processThreadCount: Int { Int(cnv_process_thread_count()) }
    /// Names the calling thread (the kernel keeps 15 bytes).
    static func setName(_ name: String) { name.withCString { cnv_set_thread_name($0) } }
    /// Sets the calling thread's `nice` value.
    static func setNice(_ value: Int32) { _ = cnv_set_thread_nice(value) }
    /// The calling thread's `nice` value.
    static var nice: Int32 { cnv_get_thread_nice() }
}
