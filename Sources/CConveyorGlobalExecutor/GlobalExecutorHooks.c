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

#define _GNU_SOURCE
#include "CConveyorGlobalExecutor.h"

#include <dlfcn.h>
#include <stddef.h>

#define SWIFTCC __attribute__((swiftcall))

// Signatures from the runtime's ConcurrencyHooks.def (Swift 6.x); each hook receives the
// runtime's own implementation as its last argument. All use the Swift calling convention.
typedef SWIFTCC void (*enqueue_original_t)(void *job);
typedef SWIFTCC void (*enqueue_delay_original_t)(unsigned long long delay, void *job);
typedef SWIFTCC void (*enqueue_deadline_original_t)(long long sec, long long nsec, long long tsec,
                                                    long long tnsec, int clock, void *job);

// The executor a job runs on: two words (identity, implementation); the generic executor
// is all zeros.
typedef struct { void *identity; uintptr_t implementation; } executor_ref_t;
extern SWIFTCC void swift_job_run(void *job, executor_ref_t executor);

static cnv_global_executor_entry_points entry;

static SWIFTCC void enqueue_hook(void *job, enqueue_original_t original) {
    (void)original;
    entry.enqueue(job);
}

static SWIFTCC void enqueue_delay_hook(unsigned long long delay, void *job, enqueue_delay_original_t original) {
    (void)original;
    entry.enqueue_after((uint64_t)delay, job);
}

static SWIFTCC void enqueue_deadline_hook(long long sec, long long nsec, long long tsec, long long tnsec,
                                          int clock, void *job, enqueue_deadline_original_t original) {
    (void)original;
    entry.enqueue_at(sec, nsec, tsec, tnsec, clock, job);
}

void cnv_run_global_job(void *job) {
    executor_ref_t generic = { NULL, 0 };
    swift_job_run(job, generic);
}

int cnv_install_global_executor(const cnv_global_executor_entry_points *entry_points) {
    void **slots[3] = {
        (void **)dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal_hook"),
        (void **)dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobalWithDelay_hook"),
        (void **)dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobalWithDeadline_hook"),
    };
    void *hooks[3] = { (void *)enqueue_hook, (void *)enqueue_delay_hook, (void *)enqueue_deadline_hook };
    for (int i = 0; i < 3; i++) {
        if (!slots[i]) return -1;
        if (__atomic_load_n(slots[i], __ATOMIC_ACQUIRE) != NULL) return 0;
    }
    entry = *entry_points;
    // The entry points are written before the hooks are published (release). The runtime
    // reads a hook with a plain load, so a thread that calls it sees `entry` only through
    // some other ordering: the documented rule (install early in main, before the first
    // task) provides it, since every thread that enqueues work later was started, or
    // handed work, after this call.
    for (int i = 0; i < 3; i++) {
        void *expected = NULL;
        if (!__atomic_compare_exchange_n(slots[i], &expected, hooks[i], 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
            // Lost a race with another library: undo what was set, report failure.
            for (int j = 0; j < i; j++) __atomic_store_n(slots[j], NULL, __ATOMIC_RELEASE);
            return 0;
        }
    }
    return 1;
}
