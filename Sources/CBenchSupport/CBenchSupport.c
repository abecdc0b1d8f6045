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
#include "CBenchSupport.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

// MARK: allocation counting
//
// glibc exports its allocator under __libc_* names, so the wrappers below reach it
// without dlsym (which may itself allocate while the process is starting). Counting
// costs one relaxed load while it is off; while on, two relaxed adds on a shared line
// (a call and its requested size), which is why the harness never counts a timed run.

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static int counting_enabled;
static uint64_t allocation_count;
static uint64_t allocation_bytes;

static inline void count_one(size_t size) {
    if (__atomic_load_n(&counting_enabled, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&allocation_count, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&allocation_bytes, (uint64_t)size, __ATOMIC_RELAXED);
    }
}

void *malloc(size_t size) { count_one(size); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count_one(n * size); return __libc_calloc(n, size); }
void *realloc(void *ptr, size_t size) { count_one(size); return __libc_realloc(ptr, size); }
void *memalign(size_t alignment, size_t size) { count_one(size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_one(size); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one(size);
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void cbs_alloc_counting_begin(void) {
    __atomic_store_n(&allocation_count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&allocation_bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&counting_enabled, 1, __ATOMIC_SEQ_CST);
}

uint64_t cbs_alloc_counting_end(void) {
    __atomic_store_n(&counting_enabled, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&allocation_count, __ATOMIC_SEQ_CST);
}

uint64_t cbs_alloc_counted_bytes(void) {
    return __atomic_load_n(&allocation_bytes, __ATOMIC_SEQ_CST);
}

int cbs_alloc_interposed(void) {
    return dlsym(RTLD_DEFAULT, "malloc") == (void *)&malloc;
}

// MARK: machine and clocks

int32_t cbs_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (int32_t)n : 1;
    }
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

static uint64_t read_clock(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t cbs_monotonic_ns(void) { return read_clock(CLOCK_MONOTONIC); }
uint64_t cbs_process_cpu_ns(void) { return read_clock(CLOCK_PROCESS_CPUTIME_ID); }

void cbs_sleep_ns(uint64_t ns) {
    struct timespec req = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };
    while (nanosleep(&req, &req) != 0 && errno == EINTR) {}
}

int32_t cbs_thread_count(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return -1;
    char line[256];
    int32_t result = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "Threads:", 8) == 0) { result = (int32_t)atoi(line + 8); break; }
    }
    fclose(f);
    return result;
}

uint64_t cbs_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return 0;
    unsigned long long size = 0, resident = 0;
    int fields = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    if (fields != 2) return 0;
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

int64_t cbs_context_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    return (int64_t)usage.ru_nvcsw + (int64_t)usage.ru_nivcsw;
}
