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

// CBenchSupport: what the benchmark harness needs from C, kept apart from the Conveyor
// library. It counts allocation calls process-wide (this target defines `malloc` and its
// siblings, so linking it into an executable interposes them for every library in the
// process) with the bytes requested, reads the RSS and context switches, and answers machine questions the Glibc
// module cannot (the affinity CPU count).
#ifndef CBENCHSUPPORT_H
#define CBENCHSUPPORT_H

#include <stdint.h>

// MARK: allocation counting

/// Resets the allocation counter and starts counting calls to malloc, calloc, realloc,
/// posix_memalign, aligned_alloc and memalign on every thread.
void cbs_alloc_counting_begin(void);
/// Stops counting and returns the number of allocation calls since the last begin.
uint64_t cbs_alloc_counting_end(void);
/// Bytes requested by the calls counted since the last begin (read after the end).
uint64_t cbs_alloc_counted_bytes(void);
/// 1 when this target's `malloc` is the one the dynamic linker resolves for the whole
/// process (so calls from libdispatch and the Swift runtime are counted), else 0.
int cbs_alloc_interposed(void);

// MARK: machine and clocks

/// CPUs in the process's affinity mask (what `taskset` allows), at least 1.
int32_t cbs_cpu_count(void);
/// CLOCK_MONOTONIC in nanoseconds.
uint64_t cbs_monotonic_ns(void);
/// CLOCK_PROCESS_CPUTIME_ID (user + system time of all threads) in nanoseconds.
uint64_t cbs_process_cpu_ns(void);
/// Sleeps the calling thread for `ns` nanoseconds (restarting after signals).
void cbs_sleep_ns(uint64_t ns);
/// Threads in this process now (from /proc/self/status), or -1.
int32_t cbs_thread_count(void);
/// Resident set size of this process in bytes (/proc/self/statm), or 0.
uint64_t cbs_rss_bytes(void);
/// Context switches of every thread of this process so far, live or exited, voluntary and
/// involuntary (getrusage RUSAGE_SELF: ru_nvcsw + ru_nivcsw), or -1.
int64_t cbs_context_switches(void);

#endif
