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

// Lifetimes of C objects after their creator's last dispatch_release (issue 25, findings 2,
// 3 and 7): as in libdispatch, an object lives while it still has work (a queue with
// pending items, a group with members, a source whose cancel handler has not returned, an
// I/O channel with operations), and its finalizer runs after that, with the context of
// that moment. Each scenario runs in a child forked before the parent touches dispatch,
// so a crash is reported as a failure of that scenario, not of the whole harness; the
// script runs this program with a malloc that poisons freed memory, which turns a read of
// a freed handle into a crash or a wrong value.
#define _GNU_SOURCE
#include <dispatch/dispatch.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(condition, ...) do { \
    if (condition) { printf("ok   "); } else { printf("FAIL "); failures++; } \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

static dispatch_time_t in_seconds(int seconds) { return dispatch_time(DISPATCH_TIME_NOW, (int64_t)seconds * NSEC_PER_SEC); }

// MARK: live allocations (this program's malloc interposes the whole process's)

static atomic_long live;
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t size) { atomic_fetch_add_explicit(&live, 1, memory_order_relaxed); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { atomic_fetch_add_explicit(&live, 1, memory_order_relaxed); return __libc_calloc(count, size); }
void *realloc(void *old, size_t size) {
    if (!old) atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
    return __libc_realloc(old, size);
}
void *aligned_alloc(size_t alignment, size_t size) { atomic_fetch_add_explicit(&live, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { atomic_fetch_add_explicit(&live, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
    *result = __libc_memalign(alignment, size);
    return *result ? 0 : 12;   // ENOMEM
}
void free(void *pointer) {
    if (pointer) atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
    __libc_free(pointer);
}

// MARK: shared state of the scenarios (each runs in its own child)

static void *const magic = (void *)0x5eed;
static atomic_int finalized, work_done, saw_context, wrong;
static dispatch_semaphore_t finished;
static dispatch_queue_t released_queue;

static void finalizer(void *context) {
    if (context != magic) atomic_fetch_add(&wrong, 1);
    // The object's work must all be over by now.
    if (!atomic_load(&work_done)) atomic_fetch_add(&wrong, 1);
    atomic_fetch_add(&finalized, 1);
    dispatch_semaphore_signal(finished);
}

static int wait_finalized(void) { return dispatch_semaphore_wait(finished, in_seconds(10)) == 0; }

// MARK: queues

// Runs after the creator's release: reads the queue's context through its handle and
// submits to it again.
static void second_item(void *unused) {
    (void)unused;
    if (dispatch_get_context(released_queue) == magic) atomic_fetch_add(&saw_context, 1);
    usleep(1000);
    atomic_store(&work_done, 1);
}
static void first_item(void *gate) {
    dispatch_semaphore_wait((dispatch_semaphore_t)gate, DISPATCH_TIME_FOREVER);   // until released
    if (dispatch_get_context(released_queue) == magic) atomic_fetch_add(&saw_context, 1);
    dispatch_async_f(released_queue, NULL, second_item);
}

static void queue_outlives_release(void) {
    finished = dispatch_semaphore_create(0);
    dispatch_semaphore_t gate = dispatch_semaphore_create(0);
    released_queue = dispatch_queue_create("lifetime.queue", NULL);
    dispatch_set_context(released_queue, magic);
    dispatch_set_finalizer_f(released_queue, finalizer);
    dispatch_async_f(released_queue, gate, first_item);
    dispatch_release(released_queue);
    dispatch_semaphore_signal(gate);
    CHECK(wait_finalized(), "a released queue's finalizer runs once its work is done");
    CHECK(atomic_load(&saw_context) == 2, "its pending work reads its context through the handle (%d of 2)", atomic_load(&saw_context));
    CHECK(atomic_load(&wrong) == 0, "the finalizer ran after the work, with the context");
}

// libdispatch's dispatch_queue_finalizer test: the context is set by a block still pending
// at the last release, and the finalizer gets that context.
static void set_context_on_released(void *unused) {
    (void)unused;
    dispatch_set_context(released_queue, magic);
    atomic_store(&work_done, 1);
}
static void queue_finalizer_sees_late_context(void) {
    finished = dispatch_semaphore_create(0);
    released_queue = dispatch_queue_create("lifetime.finalizer", NULL);
    dispatch_set_finalizer_f(released_queue, finalizer);
    dispatch_suspend(released_queue);
    dispatch_async_f(released_queue, NULL, set_context_on_released);
    dispatch_resume(released_queue);
    dispatch_release(released_queue);
    CHECK(wait_finalized(), "a finalizer gets the context set by work pending at the last release");
    CHECK(atomic_load(&wrong) == 0, "... that context, after that work");
}

// MARK: groups

static atomic_int members_left;
static void slow_member(void *unused) {
    (void)unused;
    usleep(2000);
    if (atomic_fetch_sub(&members_left, 1) == 1) atomic_store(&work_done, 1);
}
static void group_outlives_release(void) {
    int early = 0;
    for (int round = 0; round < 200; round++) {
        finished = dispatch_semaphore_create(0);
        atomic_store(&work_done, 0);
        atomic_store(&wrong, 0);
        atomic_store(&members_left, 4);
        dispatch_group_t group = dispatch_group_create();
        dispatch_set_context(group, magic);
        dispatch_set_finalizer_f(group, finalizer);
        for (int i = 0; i < 4; i++) dispatch_group_async_f(group, dispatch_get_global_queue(0, 0), NULL, slow_member);
        dispatch_release(group);
        if (!wait_finalized() || atomic_load(&wrong)) early++;
        dispatch_release(finished);
    }
    CHECK(early == 0, "a released group finalizes after its members (%d of 200 early or missing)", early);
}

// MARK: sources

static void slow_cancel_handler(void *context) {
    if (context != magic) atomic_fetch_add(&wrong, 1);
    usleep(1000);
    atomic_store(&work_done, 1);
}
static void source_outlives_release(void) {
    int early = 0;
    // A concurrent target: nothing but the source's own lifetime orders the finalizer
    // after the cancel handler.
    dispatch_queue_t target = dispatch_get_global_queue(0, 0);
    for (int round = 0; round < 200; round++) {
        finished = dispatch_semaphore_create(0);
        atomic_store(&work_done, 0);
        atomic_store(&wrong, 0);
        dispatch_source_t source = dispatch_source_create(DISPATCH_SOURCE_TYPE_DATA_ADD, 0, 0, target);
        dispatch_set_context(source, magic);
        dispatch_set_finalizer_f(source, finalizer);
        dispatch_source_set_cancel_handler_f(source, slow_cancel_handler);
        dispatch_activate(source);
        dispatch_source_cancel(source);
        dispatch_release(source);
        if (!wait_finalized() || atomic_load(&wrong)) early++;
        dispatch_release(finished);
    }
    CHECK(early == 0, "a released source finalizes after its cancel handler returns (%d of 200 early or missing)", early);
}

// MARK: semaphores, data, I/O channels

static void semaphore_and_data_finalize_at_release(void) {
    finished = dispatch_semaphore_create(0);
    atomic_store(&work_done, 1);   // no work: finalized at the last release
    dispatch_semaphore_t semaphore = dispatch_semaphore_create(1);
    dispatch_set_context(semaphore, magic);
    dispatch_set_finalizer_f(semaphore, finalizer);
    dispatch_retain(semaphore);
    dispatch_release(semaphore);
    dispatch_release(semaphore);
    CHECK(wait_finalized(), "a semaphore's finalizer runs after its last release");
    dispatch_data_t data = dispatch_data_create("abc", 3, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    dispatch_set_context(data, magic);
    dispatch_set_finalizer_f(data, finalizer);
    dispatch_release(data);
    CHECK(wait_finalized(), "a data object's finalizer runs after its last release");
    CHECK(atomic_load(&wrong) == 0, "... with their context");

    // Data made from data keeps the object that owns the bytes, as libdispatch's records
    // retain their leaf objects: its finalizer waits for the concatenation.
    dispatch_data_t leaf = dispatch_data_create("abc", 3, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    dispatch_data_t other = dispatch_data_create("de", 2, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    dispatch_set_context(leaf, magic);
    dispatch_set_finalizer_f(leaf, finalizer);
    dispatch_data_t joined = dispatch_data_create_concat(leaf, other);
    dispatch_release(leaf);
    dispatch_release(other);
    // The finalizer, when wrongly run now, goes to a global queue at once: 200 ms is ample.
    CHECK(dispatch_semaphore_wait(finished, dispatch_time(DISPATCH_TIME_NOW, 200 * NSEC_PER_MSEC)) != 0,
          "a data object used by a concatenation is not finalized at its last release");
    dispatch_release(joined);
    CHECK(wait_finalized(), "... but once the concatenation is gone");
}

static atomic_int read_done;
static void channel_outlives_release(void) {
    finished = dispatch_semaphore_create(0);
    int fds[2];
    if (pipe(fds) != 0) { CHECK(0, "pipe"); return; }
    dispatch_queue_t queue = dispatch_queue_create("lifetime.io", NULL);
    int read_end = fds[0];
    dispatch_io_t channel = dispatch_io_create(DISPATCH_IO_STREAM, read_end, queue, ^(int error) { (void)error; close(read_end); });
    dispatch_set_context(channel, magic);
    dispatch_set_finalizer_f(channel, finalizer);
    dispatch_io_read(channel, 0, 4, queue, ^(bool done, dispatch_data_t data, int error) {
        (void)data; (void)error;
        if (done) { usleep(1000); atomic_store(&read_done, 1); atomic_store(&work_done, 1); }
    });
    dispatch_release(channel);
    if (write(fds[1], "abcd", 4) != 4) CHECK(0, "write");
    CHECK(wait_finalized(), "a released I/O channel's finalizer runs");
    CHECK(atomic_load(&read_done) && atomic_load(&wrong) == 0, "... after its pending read finished");
    close(fds[1]);
    dispatch_release(queue);
}

// MARK: labels (finding 3)

static void labels_live_with_their_queue(void) {
    char label[64];
    // Warm up: the first queues allocate the runtime's own lasting structures.
    for (int i = 0; i < 1000; i++) {
        snprintf(label, sizeof label, "warm.%d", i);
        dispatch_queue_t queue = dispatch_queue_create(label, NULL);
        (void)dispatch_queue_get_label(queue);
        dispatch_release(queue);
    }
    long before = atomic_load(&live);
    int wrong_labels = 0;
    for (int i = 0; i < 100000; i++) {
        snprintf(label, sizeof label, "connection.%d", i);
        dispatch_queue_t queue = dispatch_queue_create(label, NULL);
        if (strcmp(dispatch_queue_get_label(queue), label) != 0) wrong_labels++;
        dispatch_release(queue);
    }
    long grown = atomic_load(&live) - before;
    CHECK(wrong_labels == 0, "dispatch_queue_get_label answers each queue's label");
    CHECK(grown < 100, "100,000 queues asked for their label and released leave %ld allocations (< 100)", grown);
}

// MARK: retargeting a queue from dispatch_queue_create while it is active (finding 7)

static int key;
static atomic_int before_retarget, on_new_target, order_ok;
static void before_item(void *unused) { (void)unused; usleep(2000); atomic_store(&before_retarget, 1); }
static void after_item(void *unused) {
    (void)unused;
    if (atomic_load(&before_retarget)) atomic_store(&order_ok, 1);
    if (dispatch_get_specific(&key) == magic) atomic_store(&on_new_target, 1);
    dispatch_semaphore_signal(finished);
}
// A serial queue whose blocks see `magic` under `key`: where a block ran.
static dispatch_queue_t marked_queue(const char *label) {
    dispatch_queue_t queue = dispatch_queue_create(label, NULL);
    dispatch_queue_set_specific(queue, &key, magic, NULL);
    return queue;
}

static void retarget_active_queue(void) {
    finished = dispatch_semaphore_create(0);
    dispatch_queue_t target = marked_queue("lifetime.new-target");
    dispatch_queue_t queue = dispatch_queue_create("lifetime.retargeted", NULL);
    dispatch_async_f(queue, NULL, before_item);
    dispatch_set_target_queue(queue, target);
    dispatch_async_f(queue, NULL, after_item);
    CHECK(dispatch_semaphore_wait(finished, in_seconds(10)) == 0, "dispatch_set_target_queue on an active queue from dispatch_queue_create");
    CHECK(atomic_load(&order_ok), "... takes effect in order with the queue's work");
    CHECK(atomic_load(&on_new_target), "... and later work runs on the new target");
    dispatch_release(queue);
    dispatch_release(target);
}

// The finalizer of a queue released while a retarget is still pending runs on the new
// target: libdispatch reads the target at disposal, not at the last release.
static atomic_int finalized_on_new_target;
static void finalizer_on_target(void *context) {
    (void)context;
    if (dispatch_get_specific(&key) == magic) atomic_store(&finalized_on_new_target, 1);
    dispatch_semaphore_signal(finished);
}
static void released_while_retarget_pending(void) {
    finished = dispatch_semaphore_create(0);
    dispatch_queue_t target = marked_queue("lifetime.final-target");
    dispatch_queue_t queue = dispatch_queue_create("lifetime.retargeted-then-released", NULL);
    dispatch_set_context(queue, magic);
    dispatch_set_finalizer_f(queue, finalizer_on_target);
    dispatch_async_f(queue, NULL, before_item);   // keeps the retarget pending for 2 ms
    dispatch_set_target_queue(queue, target);
    dispatch_release(queue);
    CHECK(dispatch_semaphore_wait(finished, in_seconds(10)) == 0, "the finalizer of a queue released with a retarget pending runs");
    CHECK(atomic_load(&finalized_on_new_target), "... on the new target, as libdispatch's disposal reads it");
    dispatch_release(target);
}

// MARK: driver

static int run(const char *name, void (*scenario)(void)) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        scenario();
        fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) printf("FAIL %s: killed by signal %d\n", name, WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) printf("FAIL %s\n", name);
    fflush(stdout);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(void) {
    int failed = 0;
    failed += run("queue_outlives_release", queue_outlives_release);
    failed += run("queue_finalizer_sees_late_context", queue_finalizer_sees_late_context);
    failed += run("group_outlives_release", group_outlives_release);
    failed += run("source_outlives_release", source_outlives_release);
    failed += run("semaphore_and_data_finalize_at_release", semaphore_and_data_finalize_at_release);
    failed += run("channel_outlives_release", channel_outlives_release);
    failed += run("labels_live_with_their_queue", labels_live_with_their_queue);
    failed += run("retarget_active_queue", retarget_active_queue);
    failed += run("released_while_retarget_pending", released_while_retarget_pending);
    printf("%s: %d scenario(s) failed\n", failed ? "FAIL" : "ok", failed);
    return failed ? 1 : 0;
}
