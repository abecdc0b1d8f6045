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

// CConveyorGlobalExecutor: the Swift concurrency runtime's global-executor hooks
// (exported variables of libswift_Concurrency), set on request so that tasks without an
// executor preference, `Task.sleep` and `Task.yield` run on Conveyor's pool and timers.
#ifndef CCONVEYOR_GLOBAL_EXECUTOR_H
#define CCONVEYOR_GLOBAL_EXECUTOR_H

#include <stdint.h>

/// Conveyor's entry points (plain C functions, called from the hooks).
typedef struct {
    /// A job to run as soon as possible.
    void (*enqueue)(void *job);
    /// A job to run after `delay_ns` nanoseconds (monotonic clock).
    void (*enqueue_after)(uint64_t delay_ns, void *job);
    /// A job to run at a deadline of a Swift clock (1: continuous, 2: suspending), with a
    /// tolerance (`tsec`/`tnsec`; negative when none).
    void (*enqueue_at)(int64_t sec, int64_t nsec, int64_t tsec, int64_t tnsec, int32_t clock, void *job);
} cnv_global_executor_entry_points;

/// Points the runtime's global-executor hooks at `entry_points` (copied). Returns 1 when
/// installed, 0 if another library had already set one of the hooks (nothing changed then),
/// -1 if the runtime exports no such hooks.
int cnv_install_global_executor(const cnv_global_executor_entry_points *entry_points);

/// Runs a global-executor job on the calling thread (`swift_job_run` with the generic
/// executor, as the runtime's own global executor does).
void cnv_run_global_job(void *job);

#endif
