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


// The drop-in library's ABI, checked from a program built against the toolchain's own
// <dispatch/dispatch.h> and linked with its libdispatch: what such a program inlines and
// compares (the once fast path, time encodings, the static objects' addresses, blocks
// from dispatch_block_create) and the private entry points the toolchain's libraries call.
// Scripts/drop-in.sh runs it on libdispatch and under the drop-in library; both pass.
#define _GNU_SOURCE
#include <dispatch/dispatch.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <Block/Block.h>

#ifndef QOS_CLASS_DEFAULT
#define QOS_CLASS_DEFAULT 0x15
#endif

// libdispatch's private entry points (its private headers are not installed).
extern int _dispatch_get_main_queue_port_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);
extern void dispatch_queue_set_width(dispatch_queue_t queue, long width);
extern void dispatch_async_and_wait_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
extern bool _dispatch_is_multithreaded(void);
extern const dispatch_block_t _dispatch_data_destructor_none;
extern void dispatch_read_f(dispatch_fd_t fd, size_t length, dispatch_queue_t queue, void *context,
                            void (*handler)(void *context, dispatch_data_t data, int error));

static int failures;
#define CHECK(condition, ...) do { \
    if (condition) { printf("ok   "); } else { printf("FAIL "); failures++; } \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

static dispatch_time_t in_seconds(int seconds) { return dispatch_time(DISPATCH_TIME_NOW, seconds * (int64_t)NSEC_PER_SEC); }
static uint64_t monotonic_ns(clockid_t clock) { struct timespec t; clock_gettime(clock, &t); return t.tv_sec * NSEC_PER_SEC + t.tv_nsec; }

static void count_call(void *context) { atomic_fetch_add((atomic_int *)context, 1); }
static void note_thread(void *context) { *(pthread_t *)context = pthread_self(); }

static dispatch_semaphore_t read_done;
static size_t read_size;
static void on_read(void *context, dispatch_data_t data, int error) {
    (void)context;
    read_size = error ? 0 : dispatch_data_get_size(data);
    dispatch_semaphore_signal(read_done);
}

static void blocked_item(void *context) {
    dispatch_semaphore_t *pair = context;
    dispatch_semaphore_signal(pair[0]);
    dispatch_semaphore_wait(pair[1], DISPATCH_TIME_FOREVER);
}

int main(void) {
    printf("running on %s\n", dlsym(RTLD_DEFAULT, "conveyor_drop_in") ? (const char *)dlsym(RTLD_DEFAULT, "conveyor_drop_in") : "libdispatch");

    // dispatch_once: the header's inline fast path reads the predicate as ~0 when done.
    static dispatch_once_t once;
    __block int runs = 0;
    for (int i = 0; i < 3; i++) dispatch_once(&once, ^{ runs++; });
    CHECK(runs == 1 && once == ~0l, "dispatch_once runs once and leaves the predicate at ~0 (%d runs, %ld)", runs, (long)once);

    // Times: uptime is CLOCK_MONOTONIC nanoseconds; wall times are negated nanoseconds
    // since the epoch (bits 63 and 62 set); bit 63 alone is the clock that counts sleep.
    uint64_t before = monotonic_ns(CLOCK_MONOTONIC);
    dispatch_time_t now = dispatch_time(DISPATCH_TIME_NOW, 0);
    uint64_t after = monotonic_ns(CLOCK_MONOTONIC);
    CHECK(now >= before && now <= after, "dispatch_time(NOW) is CLOCK_MONOTONIC nanoseconds");
    dispatch_time_t wall = dispatch_walltime(NULL, 0);
    uint64_t epoch = monotonic_ns(CLOCK_REALTIME);
    CHECK((wall >> 62) == 3 && (uint64_t)-(int64_t)wall <= epoch && epoch - (uint64_t)-(int64_t)wall < NSEC_PER_SEC,
          "dispatch_walltime(NULL, 0) is the negated nanoseconds since the epoch");
    CHECK(dispatch_time(DISPATCH_TIME_FOREVER, 5) == DISPATCH_TIME_FOREVER, "DISPATCH_TIME_FOREVER stays forever");
    struct timespec spec = { 1, 500 };
    CHECK(dispatch_walltime(&spec, 0) == (dispatch_time_t)-(int64_t)(NSEC_PER_SEC + 500), "dispatch_walltime of a timespec");

    dispatch_queue_t concurrent = dispatch_queue_create("probe.concurrent", DISPATCH_QUEUE_CONCURRENT);
    dispatch_semaphore_t fired = dispatch_semaphore_create(0);
    uint64_t boot_deadline = monotonic_ns(CLOCK_BOOTTIME) + 20 * NSEC_PER_MSEC;
    uint64_t asked = monotonic_ns(CLOCK_MONOTONIC);
    dispatch_after((1ull << 63) | boot_deadline, concurrent, ^{ dispatch_semaphore_signal(fired); });
    CHECK(dispatch_semaphore_wait(fired, in_seconds(5)) == 0 && monotonic_ns(CLOCK_MONOTONIC) - asked >= 19 * NSEC_PER_MSEC,
          "dispatch_after with a CLOCK_BOOTTIME deadline (Swift concurrency's ContinuousClock) waits for it");
    dispatch_after(dispatch_walltime(NULL, 10 * NSEC_PER_MSEC), concurrent, ^{ dispatch_semaphore_signal(fired); });
    CHECK(dispatch_semaphore_wait(fired, in_seconds(5)) == 0, "dispatch_after with a wall time");

    // Static objects: their addresses are the API's values.
    CHECK(dispatch_data_create("", 0, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT) == dispatch_data_empty, "empty data is dispatch_data_empty");
    char *owned = malloc(8);
    memcpy(owned, "1234567", 8);
    dispatch_data_t freed = dispatch_data_create(owned, 8, NULL, DISPATCH_DATA_DESTRUCTOR_FREE);
    const void *bytes = NULL;
    size_t size = 0;
    dispatch_data_t map = dispatch_data_create_map(freed, &bytes, &size);
    CHECK(size == 8 && bytes == owned, "DISPATCH_DATA_DESTRUCTOR_FREE keeps the buffer in place");
    dispatch_release(map);
    dispatch_release(freed);
    static const char constant[] = "constant";
    dispatch_data_t borrowed = dispatch_data_create(constant, sizeof constant, NULL, _dispatch_data_destructor_none);
    map = dispatch_data_create_map(borrowed, &bytes, &size);
    CHECK(bytes == constant && size == sizeof constant, "DISPATCH_DATA_DESTRUCTOR_NONE uses the buffer in place");
    dispatch_release(map);
    dispatch_release(borrowed);
    dispatch_source_t timer = dispatch_source_create(DISPATCH_SOURCE_TYPE_TIMER, 0, 0, concurrent);
    dispatch_source_set_timer(timer, dispatch_time(DISPATCH_TIME_NOW, NSEC_PER_MSEC), DISPATCH_TIME_FOREVER, 0);
    dispatch_source_set_event_handler(timer, ^{ dispatch_semaphore_signal(fired); });
    dispatch_activate(timer);
    CHECK(dispatch_semaphore_wait(fired, in_seconds(5)) == 0, "DISPATCH_SOURCE_TYPE_TIMER");
    dispatch_source_cancel(timer);
    dispatch_release(timer);

    // Blocks from dispatch_block_create come back to the library.
    dispatch_block_t item = dispatch_block_create(0, ^{ dispatch_semaphore_signal(fired); });
    dispatch_async(concurrent, item);
    CHECK(dispatch_block_wait(item, in_seconds(5)) == 0 && dispatch_semaphore_wait(fired, in_seconds(1)) == 0,
          "a block from dispatch_block_create runs and is waited for");
    dispatch_block_t cancelled = dispatch_block_create(0, ^{ abort(); });
    dispatch_block_cancel(cancelled);
    dispatch_async(concurrent, cancelled);
    CHECK(dispatch_block_testcancel(cancelled) != 0 && dispatch_block_wait(cancelled, in_seconds(5)) == 0,
          "a cancelled block does not run and is done");
    Block_release(item);
    Block_release(cancelled);

    atomic_int calls = 0;
    dispatch_apply_f(100, DISPATCH_APPLY_AUTO, &calls, (void (*)(void *, size_t))count_call);
    CHECK(calls == 100, "dispatch_apply_f with DISPATCH_APPLY_AUTO");

    // Private entry points that the toolchain's libraries call.
    CHECK(_dispatch_is_multithreaded(), "_dispatch_is_multithreaded after work ran");
    int port = _dispatch_get_main_queue_port_4CF();
    __block int main_runs = 0;
    pthread_t main_thread = pthread_self();
    __block pthread_t ran_on = 0;
    __block dispatch_queue_t seen = NULL;
    dispatch_async(dispatch_get_main_queue(), ^{ main_runs++; ran_on = pthread_self(); seen = dispatch_get_current_queue(); });
    struct pollfd watch = { port, POLLIN, 0 };
    int readable = poll(&watch, 1, 5000);
    _dispatch_main_queue_callback_4CF(NULL);
    CHECK(port >= 0 && readable == 1 && main_runs == 1 && pthread_equal(ran_on, main_thread),
          "the main queue's 4CF port becomes readable and the callback drains the queue (port %d)", port);
    CHECK(seen == dispatch_get_main_queue(), "dispatch_get_main_queue() is the queue its work runs on");

    pthread_t waited_on = 0;
    dispatch_async_and_wait_f(concurrent, &waited_on, note_thread);
    CHECK(waited_on != 0, "dispatch_async_and_wait_f runs the work before it returns");

    int fds[2];
    if (pipe(fds) != 0 || write(fds[1], "hello", 5) != 5) abort();
    close(fds[1]);
    read_done = dispatch_semaphore_create(0);
    dispatch_read_f(fds[0], 64, concurrent, NULL, on_read);
    CHECK(dispatch_semaphore_wait(read_done, in_seconds(5)) == 0 && read_size == 5, "dispatch_read_f reads 5 bytes");
    close(fds[0]);

    // Swift concurrency's runtime makes its queues this way: the CPU-count width must not
    // let blocked work starve the rest. Items that block are counted (libdispatch on Linux
    // starts as many as there are CPUs, and no more, while they block).
    dispatch_queue_attr_t attr = dispatch_queue_attr_make_with_qos_class(DISPATCH_QUEUE_CONCURRENT, QOS_CLASS_DEFAULT, 0);
    dispatch_queue_t limited = dispatch_queue_create("probe.width", attr);
    dispatch_queue_set_width(limited, -3);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    enum { BLOCKED = 16 };
    dispatch_semaphore_t pair[2] = { dispatch_semaphore_create(0), dispatch_semaphore_create(0) };
    for (int i = 0; i < BLOCKED; i++) dispatch_async_f(limited, pair, blocked_item);
    int started = 0;
    // Past one per CPU libdispatch starts no more (a second tells); Conveyor must start
    // them all, and gets a generous wait on a busy machine.
    int on_conveyor = dlsym(RTLD_DEFAULT, "conveyor_drop_in") != NULL;
    while (started < BLOCKED && dispatch_semaphore_wait(pair[0], in_seconds(started < cpus ? 5 : on_conveyor ? 30 : 1)) == 0) started++;
    printf("info %d of %d items that block started on a queue of width -3 (%ld CPUs)\n", started, BLOCKED, cpus);
    CHECK(started >= (cpus < BLOCKED ? cpus : BLOCKED), "dispatch_queue_set_width(-3) runs at least one item per CPU");
    if (on_conveyor)
        CHECK(started == BLOCKED, "on Conveyor, items that block do not count against the width: all start");
    for (int i = 0; i < BLOCKED; i++) dispatch_semaphore_signal(pair[1]);

    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
