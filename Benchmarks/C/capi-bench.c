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

// C workloads of the dispatch API, compiled twice by Benchmarks/C/run.sh: once against the
// toolchain's <dispatch/dispatch.h> and libdispatch, once against Conveyor's headers and
// libConveyorDispatch. Each build runs in its own process and prints one line per
// workload: name, median ns per operation over the runs, and the check's result.
#include <dispatch/dispatch.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static long plain_counter;
static atomic_long shared_counter;
static void bump(void *context) { (void)context; plain_counter++; }
static void bump_shared(void *context) { (void)context; atomic_fetch_add_explicit(&shared_counter, 1, memory_order_relaxed); }
static void bump_index(void *context, size_t index) { (void)context; (void)index; atomic_fetch_add_explicit(&shared_counter, 1, memory_order_relaxed); }

// dispatch_async_f to one serial queue, N items; done when a final sync returns.
static int serial_async_f(long n) {
    dispatch_queue_t queue = dispatch_queue_create("bench.serial", NULL);
    plain_counter = 0;
    for (long i = 0; i < n; i++) dispatch_async_f(queue, NULL, bump);
    dispatch_sync_f(queue, NULL, bump);
    dispatch_release(queue);
    return plain_counter == n + 1;
}

// dispatch_group_async_f to the default global queue, N items; done at dispatch_group_wait.
static int global_group_async_f(long n) {
    dispatch_group_t group = dispatch_group_create();
    dispatch_queue_t global = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    atomic_store(&shared_counter, 0);
    for (long i = 0; i < n; i++) dispatch_group_async_f(group, global, NULL, bump_shared);
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_release(group);
    return atomic_load(&shared_counter) == n;
}

// dispatch_apply_f over N iterations on the global queues.
static int apply_f(long n) {
    atomic_store(&shared_counter, 0);
    dispatch_apply_f((size_t)n, dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0), NULL, bump_index);
    return atomic_load(&shared_counter) == n;
}

// dispatch_sync_f onto an idle serial queue, N times.
static int sync_f(long n) {
    dispatch_queue_t queue = dispatch_queue_create("bench.sync", NULL);
    plain_counter = 0;
    for (long i = 0; i < n; i++) dispatch_sync_f(queue, NULL, bump);
    dispatch_release(queue);
    return plain_counter == n;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run(const char *name, int (*workload)(long), long n, int runs) {
    double samples[32];
    int ok = workload(n / 10);   // warm-up
    for (int r = 0; r < runs; r++) {
        uint64_t start = now_ns();
        ok &= workload(n);
        samples[r] = (double)(now_ns() - start) / (double)n;
    }
    qsort(samples, (size_t)runs, sizeof samples[0], compare);
    printf("%-22s %10ld %10.1f %s\n", name, n, samples[runs / 2], ok ? "ok" : "FAILED");
    fflush(stdout);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int runs = quick ? 1 : 5;
    long scale = quick ? 10 : 1;
    run("async_f-serial", serial_async_f, 1000000 / scale, runs);
    run("async_f-global-group", global_group_async_f, 500000 / scale, runs);
    run("apply_f", apply_f, 1000000 / scale, runs);
    run("sync_f", sync_f, 1000000 / scale, runs);
    return 0;
}
