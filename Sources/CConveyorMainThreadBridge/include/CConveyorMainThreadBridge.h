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
// - installs, when the program loads, the concurrency runtime's main-executor hooks, so
//   that MainActor jobs go onto Conveyor's main queue (one serial FIFO with its blocks)
//   and an `async` main serves Conveyor's main-thread loop;
// - reaches libdispatch's main queue by name at run time (dlsym; nothing links to it), so
//   that Conveyor's main queue can ask a RunLoop to drain it, and Conveyor's main-thread
//   loop can drain work that code built on the toolchain's Dispatch put there.
// Nothing here is named `dispatch_*`: the toolchain's libdispatch is loaded in every
// Swift process.
#ifndef CCONVEYOR_MAIN_THREAD_BRIDGE_H
#define CCONVEYOR_MAIN_THREAD_BRIDGE_H

#include <stdint.h>

/// Whether the toolchain's libdispatch main queue was found in this process.
int cnv_libdispatch_main_queue_available(void);

/// Submits `function(context)` to libdispatch's main queue (it runs wherever that queue
/// is drained: a RunLoop, an XCTest wait, or Conveyor's own main-thread loop). Returns 0
/// when submitted, -1 when libdispatch's main queue is not available.
int cnv_libdispatch_main_queue_async(void *context, void (*function)(void *));

/// The eventfd that becomes readable when libdispatch's main queue has work, or -1.
int cnv_libdispatch_main_queue_descriptor(void);

/// Runs the work on libdispatch's main queue now. Main thread only; the caller has read
/// the descriptor (as CoreFoundation does before it calls the same function).
void cnv_libdispatch_main_queue_drain(void);

/// Whether the concurrency runtime's main-executor hooks point at Conveyor (installed at
/// load time unless another library had set them first).
int cnv_main_executor_hooks_installed(void);

#endif
