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

// Support for the worker pool: the kernel's view of a thread, and the fork guard.
#define _GNU_SOURCE
#include "CConveyor.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char cnv_thread_run_state(int32_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
    char *close = strrchr(buf, ')');
    if (!close || close[1] != ' ' || close[2] == 0) return 0;
    return close[2];
}

static volatile int cnv_forked_child_flag = 0;
static volatile int cnv_fork_guard_armed_flag = 0;
static pthread_once_t cnv_fork_guard_once = PTHREAD_ONCE_INIT;

static void cnv_fork_child_handler(void) { cnv_forked_child_flag = 1; }
static void cnv_fork_guard_install(void) {
    pthread_atfork(NULL, NULL, cnv_fork_child_handler);
    cnv_fork_guard_armed_flag = 1;
}

void cnv_fork_guard_arm(void) { pthread_once(&cnv_fork_guard_once, cnv_fork_guard_install); }

int cnv_fork_guard_armed(void) { return cnv_fork_guard_armed_flag; }

int cnv_is_forked_child(void) { return cnv_forked_child_flag; }

void cnv_thread_yield(void) { sched_yield(); }
