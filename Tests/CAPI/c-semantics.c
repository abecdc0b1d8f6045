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

// The C API's semantics probe: deterministic questions with one right answer each, one
// answer per line (`name: answer`) on standard output. Scripts/drop-in.sh runs it, built
// against the toolchain's headers and libdispatch, on libdispatch and under the drop-in
// library; Scripts/c-api.sh builds it against Conveyor's headers too; both compare the
// answers with libdispatch's (Scripts/compare-answers.py), except those recorded in
// c-semantics.known with the reason. Exact return values, encodings and identities, which
// the Swift probe (Tester/Semantics) cannot see through the overlay.
#include <dispatch/dispatch.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef QOS_CLASS_USER_INTERACTIVE
// libdispatch's Linux headers leave out <sys/qos.h>.
#define QOS_CLASS_USER_INTERACTIVE 0x21
#define QOS_CLASS_USER_INITIATED 0x19
#define QOS_CLASS_DEFAULT 0x15
#define QOS_CLASS_UTILITY 0x11
#define QOS_CLASS_BACKGROUND 0x09
#endif

void _Block_release(const void *block);   // <Block.h>, outside the C compiler's search path

#define ANSWER(name, format, ...) printf("%s: " format "\n", name, __VA_ARGS__)

static long wait_long(dispatch_semaphore_t semaphore) {
    return dispatch_semaphore_wait(semaphore, dispatch_time(DISPATCH_TIME_NOW, 5 * NSEC_PER_SEC));
}

static void time_questions(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t monotonic = (uint64_t)now.tv_sec * NSEC_PER_SEC + (uint64_t)now.tv_nsec;
    uint64_t from_dispatch = dispatch_time(DISPATCH_TIME_NOW, 0);
    ANSWER("dispatch_time(NOW, 0) is CLOCK_MONOTONIC within 1 s", "%d",
           from_dispatch >= monotonic && from_dispatch - monotonic < NSEC_PER_SEC);
    ANSWER("dispatch_time(FOREVER, 5) is FOREVER", "%d", dispatch_time(DISPATCH_TIME_FOREVER, 5) == DISPATCH_TIME_FOREVER);
    ANSWER("dispatch_time(1000, 500)", "%llu", (unsigned long long)dispatch_time(1000, 500));
    ANSWER("dispatch_time(1000, -2000)", "%llu", (unsigned long long)dispatch_time(1000, -2000));
    ANSWER("dispatch_time(1000, INT64_MAX) is FOREVER", "%d", dispatch_time(1000, INT64_MAX) == DISPATCH_TIME_FOREVER);
    ANSWER("dispatch_time(1000, -1000)", "%llu", (unsigned long long)dispatch_time(1000, -1000));
    ANSWER("DISPATCH_TIME_FOREVER", "%llu", (unsigned long long)DISPATCH_TIME_FOREVER);
    ANSWER("DISPATCH_WALLTIME_NOW", "%llu", (unsigned long long)DISPATCH_WALLTIME_NOW);
    struct timespec hundred = { .tv_sec = 100, .tv_nsec = 5 };
    ANSWER("dispatch_walltime(100 s 5 ns, 0)", "%llu", (unsigned long long)dispatch_walltime(&hundred, 0));
    ANSWER("dispatch_walltime(100 s 5 ns, 1 s)", "%llu", (unsigned long long)dispatch_walltime(&hundred, NSEC_PER_SEC));
    ANSWER("dispatch_walltime(100 s 5 ns, -200 s)", "%llu", (unsigned long long)dispatch_walltime(&hundred, -200 * (int64_t)NSEC_PER_SEC));
    ANSWER("dispatch_time(a wall time, 1 s) is that wall time + 1 s", "%d",
           dispatch_time(dispatch_walltime(&hundred, 0), NSEC_PER_SEC) == dispatch_walltime(&hundred, NSEC_PER_SEC));
    ANSWER("dispatch_walltime(NULL, 0) is a wall time (negative)", "%d", (int64_t)dispatch_walltime(NULL, 0) < 0);
    ANSWER("dispatch_time(WALLTIME_NOW, 0) is a wall time (negative)", "%d", (int64_t)dispatch_time(DISPATCH_WALLTIME_NOW, 0) < 0);
}

static void queue_questions(void) {
    ANSWER("label of the current queue on the main thread", "%s", dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL));
    dispatch_queue_t named = dispatch_queue_create("named", NULL);
    dispatch_sync(named, ^{
        ANSWER("label of the current queue in a sync", "%s", dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL));
    });
    dispatch_queue_t unnamed = dispatch_queue_create(NULL, NULL);
    const char *label = dispatch_queue_get_label(unnamed);
    ANSWER("label of a queue made with NULL", "[%s]", label ? label : "(NULL)");
    ANSWER("label of the main queue", "%s", dispatch_queue_get_label(dispatch_get_main_queue()));
    long priorities[] = { DISPATCH_QUEUE_PRIORITY_HIGH, DISPATCH_QUEUE_PRIORITY_DEFAULT, DISPATCH_QUEUE_PRIORITY_LOW,
                          DISPATCH_QUEUE_PRIORITY_BACKGROUND, QOS_CLASS_USER_INTERACTIVE, QOS_CLASS_USER_INITIATED,
                          QOS_CLASS_DEFAULT, QOS_CLASS_UTILITY, QOS_CLASS_BACKGROUND, 7 };
    for (size_t index = 0; index < sizeof priorities / sizeof priorities[0]; index++) {
        dispatch_queue_t global = dispatch_get_global_queue(priorities[index], 0);
        char name[64];
        snprintf(name, sizeof name, "dispatch_get_global_queue(%ld, 0) label", priorities[index]);
        ANSWER(name, "%s", global ? dispatch_queue_get_label(global) : "(NULL)");
        if (global) {
            int relative = 99;
            unsigned qos = (unsigned)dispatch_queue_get_qos_class(global, &relative);
            snprintf(name, sizeof name, "dispatch_get_global_queue(%ld, 0) qos", priorities[index]);
            ANSWER(name, "%#x %d", qos, relative);
        }
    }
    ANSWER("dispatch_get_global_queue(0, 1) is NULL", "%d", dispatch_get_global_queue(0, 1) == NULL);
    ANSWER("the same global queue twice", "%d", dispatch_get_global_queue(0, 0) == dispatch_get_global_queue(0, 0));
    ANSWER("global queue of QOS_CLASS_DEFAULT is the one of priority 0", "%d",
           dispatch_get_global_queue(QOS_CLASS_DEFAULT, 0) == dispatch_get_global_queue(0, 0));
    int relative = 99;
    ANSWER("qos of a queue made with NULL", "%#x %d", (unsigned)dispatch_queue_get_qos_class(named, &relative), relative);
    dispatch_queue_attr_t attr = dispatch_queue_attr_make_with_qos_class(DISPATCH_QUEUE_SERIAL, QOS_CLASS_UTILITY, -4);
    dispatch_queue_t utility = dispatch_queue_create("utility", attr);
    ANSWER("qos of a queue made (utility, -4)", "%#x %d", (unsigned)dispatch_queue_get_qos_class(utility, &relative), relative);
    ANSWER("attr with qos class 0x12 is NULL", "%d", dispatch_queue_attr_make_with_qos_class(NULL, 0x12, 0) == NULL);
    ANSWER("attr with relative priority 1 is NULL", "%d", dispatch_queue_attr_make_with_qos_class(NULL, QOS_CLASS_UTILITY, 1) == NULL);

    static int key;
    ANSWER("dispatch_get_specific with nothing set", "%p", dispatch_get_specific(&key));
    dispatch_semaphore_t destroyed = dispatch_semaphore_create(0);
    dispatch_queue_set_specific(named, &key, (void *)destroyed, (dispatch_function_t)(void (*)(void *))dispatch_semaphore_signal);
    ANSWER("dispatch_queue_get_specific", "%d", dispatch_queue_get_specific(named, &key) == (void *)destroyed);
    dispatch_sync(named, ^{ ANSWER("dispatch_get_specific in a sync", "%d", dispatch_get_specific(&key) == (void *)destroyed); });
    dispatch_queue_set_specific(named, &key, (void *)1, NULL);
    ANSWER("a replaced specific value's destructor ran", "%ld", wait_long(destroyed));
    dispatch_queue_set_specific(named, &key, NULL, NULL);
    ANSWER("dispatch_queue_get_specific after removal", "%p", dispatch_queue_get_specific(named, &key));

    dispatch_semaphore_t finalized = dispatch_semaphore_create(0);
    dispatch_queue_t finalizing = dispatch_queue_create("finalizing", NULL);
    ANSWER("dispatch_get_context of a new queue", "%p", dispatch_get_context(finalizing));
    dispatch_set_context(finalizing, (void *)finalized);
    dispatch_set_finalizer_f(finalizing, (dispatch_function_t)(void (*)(void *))dispatch_semaphore_signal);
    ANSWER("dispatch_get_context", "%d", dispatch_get_context(finalizing) == (void *)finalized);
    dispatch_release(finalizing);
    ANSWER("a released queue's finalizer ran", "%ld", wait_long(finalized));

    __block int calls = 0;
    dispatch_apply(0, DISPATCH_APPLY_AUTO, ^(size_t index) { (void)index; calls++; });
    ANSWER("dispatch_apply(0) calls", "%d", calls);
    static dispatch_once_t once;
    __block int onces = 0;
    ANSWER("dispatch_once predicate before", "%ld", (long)once);
    dispatch_once(&once, ^{ onces++; });
    dispatch_once(&once, ^{ onces++; });
    ANSWER("dispatch_once runs", "%d", onces);
    ANSWER("dispatch_once predicate after", "%ld", (long)once);

    dispatch_semaphore_t never = dispatch_semaphore_create(0);
    dispatch_after(DISPATCH_TIME_FOREVER, named, ^{ dispatch_semaphore_signal(never); });
    ANSWER("dispatch_after(FOREVER) ran", "%d",
           dispatch_semaphore_wait(never, dispatch_time(DISPATCH_TIME_NOW, 30 * NSEC_PER_MSEC)) == 0);
    dispatch_release(named);
    dispatch_release(unnamed);
    dispatch_release(utility);
}

static void work_questions(void) {
    dispatch_semaphore_t semaphore = dispatch_semaphore_create(0);
    ANSWER("dispatch_semaphore_signal with no waiter", "%ld", dispatch_semaphore_signal(semaphore));
    ANSWER("dispatch_semaphore_wait after it", "%ld", dispatch_semaphore_wait(semaphore, DISPATCH_TIME_NOW));
    ANSWER("dispatch_semaphore_wait timing out", "%ld", dispatch_semaphore_wait(semaphore, DISPATCH_TIME_NOW));
    ANSWER("dispatch_semaphore_create(-1) is NULL", "%d", dispatch_semaphore_create(-1) == NULL);

    dispatch_group_t group = dispatch_group_create();
    ANSWER("dispatch_group_wait of an empty group", "%ld", dispatch_group_wait(group, DISPATCH_TIME_NOW));
    dispatch_group_enter(group);
    ANSWER("dispatch_group_wait timing out", "%ld", dispatch_group_wait(group, DISPATCH_TIME_NOW));
    dispatch_group_leave(group);
    ANSWER("dispatch_group_wait after leave", "%ld", dispatch_group_wait(group, DISPATCH_TIME_NOW));

    dispatch_block_t block = dispatch_block_create(0, ^{});
    ANSWER("dispatch_block_testcancel of a new block", "%ld", dispatch_block_testcancel(block));
    ANSWER("dispatch_block_wait timing out", "%ld", dispatch_block_wait(block, DISPATCH_TIME_NOW));
    dispatch_block_cancel(block);
    ANSWER("dispatch_block_testcancel after cancel", "%ld", dispatch_block_testcancel(block));
    _Block_release(block);
    dispatch_block_t run = dispatch_block_create(0, ^{});
    run();
    ANSWER("dispatch_block_wait after it ran", "%ld", dispatch_block_wait(run, DISPATCH_TIME_NOW));
    _Block_release(run);
    ANSWER("dispatch_block_create with bad flags is NULL", "%d", dispatch_block_create((dispatch_block_flags_t)0x80000000u, ^{}) == NULL);
    dispatch_release(semaphore);
    dispatch_release(group);
}

static void data_questions(void) {
    char nothing = 0;
    dispatch_data_t empty = dispatch_data_create(&nothing, 0, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    ANSWER("dispatch_data_create of 0 bytes is dispatch_data_empty", "%d", empty == dispatch_data_empty);
    ANSWER("size of dispatch_data_empty", "%zu", dispatch_data_get_size(dispatch_data_empty));
    char bytes[] = "abcdef";
    dispatch_data_t abc = dispatch_data_create(bytes, 3, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    dispatch_data_t def = dispatch_data_create(bytes + 3, 3, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    bytes[0] = 'X';
    dispatch_data_t with_empty = dispatch_data_create_concat(dispatch_data_empty, abc);
    ANSWER("concat(empty, x) is x", "%d", with_empty == abc);
    dispatch_data_t whole = dispatch_data_create_subrange(abc, 0, 3);
    ANSWER("subrange of all of x is x", "%d", whole == abc);
    dispatch_data_t both = dispatch_data_create_concat(abc, def);
    ANSWER("concat size", "%zu", dispatch_data_get_size(both));
    dispatch_data_t beyond = dispatch_data_create_subrange(both, 4, 100);
    ANSWER("subrange past the end, size", "%zu", dispatch_data_get_size(beyond));
    dispatch_data_t none = dispatch_data_create_subrange(both, 10, 2);
    ANSWER("subrange starting past the end is empty", "%d", none == dispatch_data_empty);
    const void *buffer = NULL;
    size_t size = 0;
    dispatch_data_t map = dispatch_data_create_map(both, &buffer, &size);
    ANSWER("map of two regions", "%.*s (%zu)", (int)size, (const char *)buffer, size);
    size_t offset = 99;
    dispatch_data_t region = dispatch_data_copy_region(both, 4, &offset);
    ANSWER("copy_region at 4", "size %zu at %zu", dispatch_data_get_size(region), offset);
    static char visited[128];
    visited[0] = 0;
    bool finished = dispatch_data_apply(both, ^bool(dispatch_data_t part, size_t at, const void *start, size_t length) {
        (void)part; (void)start;
        size_t used = strlen(visited);
        snprintf(visited + used, sizeof visited - used, "%zu+%zu ", at, length);
        return true;
    });
    ANSWER("dispatch_data_apply visited, returned", "%s%d", visited, finished);
    bool stopped = dispatch_data_apply(both, ^bool(dispatch_data_t part, size_t at, const void *start, size_t length) {
        (void)part; (void)at; (void)start; (void)length;
        return false;
    });
    ANSWER("dispatch_data_apply stopped returns", "%d", stopped);
    ANSWER("dispatch_data_apply of empty returns", "%d",
           dispatch_data_apply(dispatch_data_empty, ^bool(dispatch_data_t p, size_t a, const void *s, size_t l) {
               (void)p; (void)a; (void)s; (void)l; return false; }));
    dispatch_release(map);
    dispatch_release(region);
    dispatch_release(beyond);
    dispatch_release(none);
    dispatch_release(both);
    dispatch_release(whole);
    dispatch_release(with_empty);
    dispatch_release(abc);
    dispatch_release(def);
}

static void source_questions(void) {
    dispatch_queue_t queue = dispatch_queue_create("sources", NULL);
    ANSWER("timer source with handle 5 is NULL", "%d", dispatch_source_create(DISPATCH_SOURCE_TYPE_TIMER, 5, 0, queue) == NULL);
    ANSWER("data-add source with mask 1 is NULL", "%d", dispatch_source_create(DISPATCH_SOURCE_TYPE_DATA_ADD, 0, 1, queue) == NULL);
    dispatch_source_t timer = dispatch_source_create(DISPATCH_SOURCE_TYPE_TIMER, 0, DISPATCH_TIMER_STRICT, queue);
    ANSWER("strict timer source made", "%d", timer != NULL);
    ANSWER("timer handle, mask, data", "%lu %lu %lu", dispatch_source_get_handle(timer), dispatch_source_get_mask(timer),
           dispatch_source_get_data(timer));
    ANSWER("dispatch_source_testcancel of a new source", "%ld", dispatch_source_testcancel(timer));
    dispatch_semaphore_t fired = dispatch_semaphore_create(0);
    dispatch_source_set_event_handler(timer, ^{ dispatch_semaphore_signal(fired); });
    dispatch_source_set_timer(timer, DISPATCH_TIME_FOREVER, NSEC_PER_MSEC, 0);
    dispatch_activate(timer);
    ANSWER("timer started at FOREVER fired", "%d", dispatch_semaphore_wait(fired, dispatch_time(DISPATCH_TIME_NOW, 30 * NSEC_PER_MSEC)) == 0);
    dispatch_semaphore_t cancelled = dispatch_semaphore_create(0);
    dispatch_source_set_cancel_handler(timer, ^{
        ANSWER("dispatch_source_testcancel in the cancel handler", "%ld", dispatch_source_testcancel(timer));
        dispatch_semaphore_signal(cancelled);
    });
    dispatch_source_cancel(timer);
    ANSWER("dispatch_source_testcancel after cancel", "%ld", dispatch_source_testcancel(timer));
    wait_long(cancelled);

    dispatch_source_t add = dispatch_source_create(DISPATCH_SOURCE_TYPE_DATA_ADD, 0, 0, queue);
    dispatch_source_set_event_handler(add, ^{
        ANSWER("data-add event", "%lu", dispatch_source_get_data(add));
        dispatch_semaphore_signal(fired);
    });
    dispatch_source_merge_data(add, 2);
    dispatch_source_merge_data(add, 3);
    dispatch_activate(add);
    wait_long(fired);
    dispatch_source_cancel(add);
    dispatch_source_merge_data(add, 7);
    dispatch_sync(queue, ^{});
    ANSWER("data outside a handler after cancel", "%lu", dispatch_source_get_data(add));
    dispatch_release(add);
    dispatch_release(timer);
    dispatch_release(queue);
}

static void io_questions(void) {
    dispatch_queue_t queue = dispatch_queue_create("io", NULL);
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    int descriptors[2];
    if (pipe(descriptors) != 0) { ANSWER("pipe", "%s", "failed"); return; }
    dispatch_io_t random = dispatch_io_create(DISPATCH_IO_RANDOM, descriptors[0], queue, ^(int error) {
        ANSWER("random channel on a pipe, cleanup error", "%d", error);
        dispatch_semaphore_signal(done);
    });
    ANSWER("random channel on a pipe made", "%d", random != NULL);
    if (random) {
        dispatch_io_read(random, 0, 10, queue, ^(bool finished, dispatch_data_t data, int error) {
            if (finished) {
                ANSWER("read on a random channel on a pipe", "%d %zu %d", finished, data ? dispatch_data_get_size(data) : 0, error);
                dispatch_semaphore_signal(done);
            }
        });
        wait_long(done);
        dispatch_io_close(random, 0);
        wait_long(done);
        dispatch_release(random);
    }
    dispatch_read(-1, 10, queue, ^(dispatch_data_t data, int error) {
        ANSWER("dispatch_read(-1)", "%zu bytes, error %d", dispatch_data_get_size(data), error);
        dispatch_semaphore_signal(done);
    });
    wait_long(done);
    dispatch_io_t relative = dispatch_io_create_with_path(DISPATCH_IO_STREAM, "relative/path", O_RDONLY, 0, queue, ^(int error) { (void)error; });
    ANSWER("channel on a relative path is NULL", "%d", relative == NULL);
    dispatch_io_t stream = dispatch_io_create(DISPATCH_IO_STREAM, descriptors[0], queue, ^(int error) {
        ANSWER("stream channel cleanup error", "%d", error);
        dispatch_semaphore_signal(done);
    });
    ANSWER("dispatch_io_get_descriptor", "%d", dispatch_io_get_descriptor(stream) == descriptors[0]);
    dispatch_io_close(stream, DISPATCH_IO_STOP);
    wait_long(done);
    ANSWER("dispatch_io_get_descriptor after close", "%d", dispatch_io_get_descriptor(stream));
    dispatch_release(stream);
    close(descriptors[0]);
    close(descriptors[1]);
    dispatch_release(queue);
}

static void order_questions(void) {
    dispatch_queue_t concurrent = dispatch_queue_create("applied", DISPATCH_QUEUE_CONCURRENT);
    static const char *labels[8];
    dispatch_apply(8, concurrent, ^(size_t index) { labels[index] = dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL); });
    int same = 0;
    for (int index = 0; index < 8; index++) same += labels[index] && strcmp(labels[index], "applied") == 0;
    ANSWER("iterations of dispatch_apply on a queue that see its label", "%d of 8", same);
    dispatch_queue_t serial = dispatch_queue_create("serial", NULL);
    __block int inOrder = 1;
    __block size_t next = 0;
    dispatch_apply(16, serial, ^(size_t index) { if (index != next++) inOrder = 0; });
    ANSWER("dispatch_apply on a serial queue runs in order", "%d", inOrder);

    // A queue made by dispatch_queue_create may change its target while active: later
    // blocks run on the new one.
    static int key;
    dispatch_queue_t first = dispatch_queue_create("first", NULL);
    dispatch_queue_t second = dispatch_queue_create("second", NULL);
    dispatch_queue_set_specific(first, &key, (void *)1, NULL);
    dispatch_queue_set_specific(second, &key, (void *)2, NULL);
    dispatch_queue_t moving = dispatch_queue_create("moving", NULL);
    dispatch_set_target_queue(moving, first);
    dispatch_sync(moving, ^{ ANSWER("specific through the first target", "%ld", (long)dispatch_get_specific(&key)); });
    dispatch_set_target_queue(moving, second);
    dispatch_sync(moving, ^{ ANSWER("specific after an active retarget", "%ld", (long)dispatch_get_specific(&key)); });
    dispatch_set_target_queue(moving, NULL);
    dispatch_sync(moving, ^{ ANSWER("specific after a retarget to NULL", "%ld", (long)dispatch_get_specific(&key)); });

    // (dispatch_async_and_wait and its barrier form are not in the toolchain's headers.)
    __block int barrierSaw = -1;
    __block int done = 0;
    for (int index = 0; index < 4; index++) dispatch_async(concurrent, ^{ __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST); });
    dispatch_barrier_sync(concurrent, ^{ barrierSaw = __atomic_load_n(&done, __ATOMIC_SEQ_CST); });
    ANSWER("barrier_sync sees the blocks before it done", "%d", barrierSaw);

    dispatch_semaphore_t ran = dispatch_semaphore_create(0);
    struct timespec past = { .tv_sec = 1, .tv_nsec = 0 };
    dispatch_after(dispatch_walltime(&past, 0), serial, ^{ dispatch_semaphore_signal(ran); });
    ANSWER("dispatch_after a wall time in 1970 ran", "%ld", wait_long(ran));
    dispatch_group_t group = dispatch_group_create();
    __block int notified = 0;
    dispatch_group_notify(group, serial, ^{ notified = 1; });
    dispatch_sync(serial, ^{ ANSWER("notify of an empty group ran before a later sync", "%d", notified); });
    ANSWER("dispatch_block_create_with_qos_class with relative priority 1 is NULL", "%d",
           dispatch_block_create_with_qos_class(0, QOS_CLASS_UTILITY, 1, ^{}) == NULL);
    dispatch_release(group);
    dispatch_release(ran);
    dispatch_release(moving);
    dispatch_release(first);
    dispatch_release(second);
    dispatch_release(serial);
    dispatch_release(concurrent);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    time_questions();
    queue_questions();
    work_questions();
    data_questions();
    source_questions();
    io_questions();
    order_questions();
    printf("done\n");
    return 0;
}
