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

// CConveyorMainThreadBridge: the one place where Conveyor meets what else runs the main
// thread of a Swift process on Linux.
//
// Two parties besides Conveyor may own the main thread: the Swift concurrency runtime
// (MainActor jobs, an `async` main) and the toolchain's libdispatch main queue, which
// Foundation's RunLoop (and so XCTest's waits) drains. This target
// - makes, when the program loads, Conveyor's main queue the concurrency runtime's main
//   executor (`MainActor.executor`, where Swift 6.3 sends MainActor jobs) and installs
//   its older main-executor hooks, so that MainActor jobs go onto Conveyor's main queue
//   (one serial FIFO with its blocks) and an `async` main serves Conveyor's loop;
// - reaches libdispatch's main queue by name at run time (dlsym; nothing links to it), so
//   that Conveyor's main queue can ask a RunLoop to drain it, and Conveyor's main-thread
//   loop can drain work that code built on the toolchain's Dispatch put there.
// - hands the drop-in library this copy of the runtime, when the program links Conveyor
//   and runs under it (DropInAdoption.c), so that the process has one runtime.
// Nothing here is named `dispatch_*`: the toolchain's libdispatch is loaded in every
// Swift process.
#ifndef CCONVEYOR_MAIN_THREAD_BRIDGE_H
#define CCONVEYOR_MAIN_THREAD_BRIDGE_H

#include <stdint.h>

// Every function here is hidden: each loaded object that holds the runtime (a program, the
// drop-in library, libConveyorDispatch.so) has its own copy of this target, and each copy
// must call its own (a program linked with --export-dynamic would otherwise lend the
// library its functions, which then answer for the program).
#define CNV_BRIDGE_FUNCTION __attribute__((visibility("hidden")))

/// Whether the toolchain's libdispatch main queue was found in this process.
CNV_BRIDGE_FUNCTION int cnv_libdispatch_main_queue_available(void);

/// Submits `function(context)` to libdispatch's main queue (it runs wherever that queue
/// is drained: a RunLoop, an XCTest wait, or Conveyor's own main-thread loop). Returns 0
/// when submitted, -1 when libdispatch's main queue is not available.
CNV_BRIDGE_FUNCTION int cnv_libdispatch_main_queue_async(void *context, void (*function)(void *));

/// The eventfd that becomes readable when libdispatch's main queue has work, or -1.
CNV_BRIDGE_FUNCTION int cnv_libdispatch_main_queue_descriptor(void);

/// Runs the work on libdispatch's main queue now. Main thread only; the caller has read
/// the descriptor (as CoreFoundation does before it calls the same function).
CNV_BRIDGE_FUNCTION void cnv_libdispatch_main_queue_drain(void);

/// Whether the concurrency runtime's main-executor hooks point at Conveyor (installed at
/// load time unless another library had set them first).
CNV_BRIDGE_FUNCTION int cnv_main_executor_hooks_installed(void);

/// Whether Conveyor's main queue became Swift concurrency's main executor at load time
/// (`MainActor.executor`, which Swift 6.3 sends every MainActor job to; not in the drop-in
/// library itself).
CNV_BRIDGE_FUNCTION int cnv_main_executor_installed(void);

// MARK: one runtime per process (DropInAdoption.c)

/// What a program that links Conveyor's Swift module hands the drop-in library when both
/// are in one process: its own runtime's C entry points, in the order of
/// cnv_runtime_entries.def, so that the library's libdispatch names forward to them.
struct cnv_runtime_table {
    /// CNV_RUNTIME_FINGERPRINT of the program's build: the library takes the table only
    /// if its own is the same (same entry points, signatures and static objects).
    uint64_t fingerprint;
    /// CNV_RUNTIME_ENTRY_COUNT of the program's build.
    uint64_t count;
    /// The entry points, `count` of them.
    void *const *entries;
};

/// The drop-in library's side (exported by libConveyorDropIn.so, found with dlsym):
/// forwards the library's libdispatch names to `table`'s runtime from now on. Returns 1
/// when it did (or had already, for the same table), 0 with `*why` set when it refused:
/// another build, or its own runtime already holds objects or work that the program's
/// would not know.
typedef int (*cnv_drop_in_adopt_function)(const struct cnv_runtime_table *table, const char **why);

/// Where this process's dispatch calls go, decided once when the program loads:
/// 1 when this copy of the runtime is the process's and the drop-in library forwards to
/// it; 0 when there is no drop-in library, this copy is the drop-in library's own or not
/// in the main executable (a shared library's), or the library refused (then it said why
/// on standard error, and the process has two runtimes, as before).
CNV_BRIDGE_FUNCTION int cnv_drop_in_adopted(void);

#endif
