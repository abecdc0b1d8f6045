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

// Edges of the C API where libdispatch's answer is not the obvious one: the main and
// global queues ignore suspension and retargeting, work straight on a global queue runs
// "on" that queue, finalizers follow a group's or semaphore's target, a queue takes the
// QoS of the global queue it targets, and the maintenance class is background. Each check
// passes on the toolchain's libdispatch too (Scripts/drop-in.sh runs it on both); all
// failed on Conveyor before (a differential review's findings).

#include <dispatch/dispatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef QOS_CLASS_USER_INITIATED
#define QOS_CLASS_USER_INITIATED 0x19
#define QOS_CLASS_UTILITY 0x11
#define QOS_CLASS_BACKGROUND 0x09
#define QOS_CLASS_UNSPECIFIED 0x00
#endif
#define QOS_CLASS_MAINTENANCE_VALUE 0x05

static int failures = 0;
#define CHECK(condition, ...) do { \
    if (condition) { printf("ok   "); } else { printf("FAIL "); failures++; } \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

static dispatch_time_t in_seconds(int seconds) { return dispatch_time(DISPATCH_TIME_NOW, (int64_t)seconds * NSEC_PER_SEC); }

// The main queue and the global queues ignore dispatch_suspend, dispatch_resume and
// dispatch_set_target_queue (libdispatch returns at once for them). On Conveyor the main
// queue was suspended (a dispatch_sync to it from another thread hung) and the second
// resume below trapped as an over-resume; retargeting them trapped.
static void test_main_and_global_queues_ignore_changes(void) {
    dispatch_queue_t main_queue = dispatch_get_main_queue();
    dispatch_queue_t global = dispatch_get_global_queue(QOS_CLASS_UTILITY, 0);
    dispatch_suspend(main_queue);
    dispatch_resume(main_queue);
    dispatch_resume(main_queue);
    dispatch_suspend(global);
    dispatch_set_target_queue(main_queue, global);
    dispatch_set_target_queue(global, dispatch_get_global_queue(QOS_CLASS_BACKGROUND, 0));
    dispatch_semaphore_t ran = dispatch_semaphore_create(0);
    dispatch_async(global, ^{ dispatch_semaphore_signal(ran); });
    CHECK(dispatch_semaphore_wait(ran, in_seconds(10)) == 0,
          "the main and global queues ignore suspend, resume and set_target_queue");
    dispatch_release(ran);
}

// Work submitted straight to a global queue runs "on" it: its label is the current label
// and dispatch_get_current_queue answers it, overcommitting or not (Conveyor answered ""
// and the default global queue). A thread the program made is on the default
// overcommitting global queue, as libdispatch says.
void _Block_release(const void *block);   // <Block.h>, outside the C compiler's search path

static const char *current_label(void) { return dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL); }

static void *label_on_plain_thread(void *result) {
    strncpy(result, current_label(), 127);
    return NULL;
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static void test_current_queue_of_global_work(void) {
    for (int overcommit = 0; overcommit < 2; overcommit++) {
        dispatch_queue_t global = dispatch_get_global_queue(QOS_CLASS_UTILITY, overcommit ? 2 : 0);
        static char label[128];
        label[0] = 0;
        __block dispatch_queue_t current = NULL;
        dispatch_semaphore_t done = dispatch_semaphore_create(0);
        dispatch_async(global, ^{
            strncpy(label, current_label(), sizeof label - 1);
            current = dispatch_get_current_queue();
            dispatch_semaphore_signal(done);
        });
        dispatch_semaphore_wait(done, DISPATCH_TIME_FOREVER);
        CHECK(strcmp(label, dispatch_queue_get_label(global)) == 0 && current == global,
              "a block on global queue '%s' runs on it (label '%s')", dispatch_queue_get_label(global), label);
        static char in_apply[128];
        in_apply[0] = 0;
        dispatch_apply(1, global, ^(size_t index) { (void)index; strncpy(in_apply, current_label(), sizeof in_apply - 1); });
        CHECK(strcmp(in_apply, dispatch_queue_get_label(global)) == 0,
              "dispatch_apply's iterations on the caller run on global queue '%s' (label '%s')",
              dispatch_queue_get_label(global), in_apply);
        dispatch_release(done);
    }
    // Work with a QoS of its own runs on the queue it was submitted to, not on the global
    // queue of its QoS (Conveyor answered that one, and asserting the queue trapped).
    dispatch_queue_t utility = dispatch_get_global_queue(QOS_CLASS_UTILITY, 0);
    __block dispatch_queue_t current_of_own_qos = NULL;
    dispatch_semaphore_t own_done = dispatch_semaphore_create(0);
    dispatch_block_t own_qos = dispatch_block_create_with_qos_class(DISPATCH_BLOCK_ENFORCE_QOS_CLASS, QOS_CLASS_USER_INITIATED, 0, ^{
        current_of_own_qos = dispatch_get_current_queue();
        dispatch_assert_queue(utility);
        dispatch_semaphore_signal(own_done);
    });
    dispatch_async(utility, own_qos);
    dispatch_semaphore_wait(own_done, DISPATCH_TIME_FOREVER);
    CHECK(current_of_own_qos == utility, "a block with a QoS of its own runs on the global queue it was submitted to");
    _Block_release(own_qos);
    dispatch_release(own_done);
    char plain[128] = "";
    pthread_t thread;
    pthread_create(&thread, NULL, label_on_plain_thread, plain);
    pthread_join(thread, NULL);
    CHECK(strcmp(plain, dispatch_queue_get_label(dispatch_get_global_queue(0, 2))) == 0,
          "a thread the program made is on the default overcommitting global queue (label '%s')", plain);
}
#pragma clang diagnostic pop

// A group's or semaphore's finalizer runs on the target dispatch_set_target_queue gave it
// (Conveyor ran it on the default global queue).
static char finalizer_target_key;
static atomic_int finalized_on_target, finalized;
static void note_finalizer(void *context) {
    (void)context;
    if (dispatch_get_specific(&finalizer_target_key) != NULL) atomic_fetch_add(&finalized_on_target, 1);
    atomic_fetch_add(&finalized, 1);
}

static void test_finalizers_follow_the_target(void) {
    dispatch_queue_t target = dispatch_queue_create("edges.finalizer-target", NULL);
    dispatch_queue_set_specific(target, &finalizer_target_key, (void *)1, NULL);
    dispatch_group_t group = dispatch_group_create();
    dispatch_semaphore_t semaphore = dispatch_semaphore_create(0);
#define FINALIZE_ON_TARGET(object) do { \
        dispatch_set_context(object, (void *)1); \
        dispatch_set_finalizer_f(object, note_finalizer); \
        dispatch_set_target_queue(object, target); \
        dispatch_release(object); } while (0)
    FINALIZE_ON_TARGET(group);
    FINALIZE_ON_TARGET(semaphore);
    for (int i = 0; i < 1000 && atomic_load(&finalized) < 2; i++) {
        dispatch_sync(target, ^{});
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    CHECK(atomic_load(&finalized_on_target) == 2, "a group's and a semaphore's finalizers run on their target (%d of %d)",
          atomic_load(&finalized_on_target), atomic_load(&finalized));
    dispatch_release(target);
}

// A queue without a QoS of its own reports that of the global queue it targets; the
// maintenance class is background (Conveyor said unspecified, and gave NULL for it).
static void test_qos_classes(void) {
    dispatch_queue_t utility = dispatch_queue_create_with_target("edges.utility", NULL,
                                                                 dispatch_get_global_queue(QOS_CLASS_UTILITY, 0));
    int relative = 1;
    CHECK(dispatch_queue_get_qos_class(utility, &relative) == QOS_CLASS_UTILITY && relative == 0,
          "a queue takes the QoS of the global queue it targets");
    dispatch_queue_t plain = dispatch_queue_create("edges.plain", NULL);
    CHECK(dispatch_queue_get_qos_class(plain, NULL) == QOS_CLASS_UNSPECIFIED,
          "a queue on the default global queue reports none");
    CHECK(dispatch_get_global_queue(QOS_CLASS_MAINTENANCE_VALUE, 0) == dispatch_get_global_queue(QOS_CLASS_BACKGROUND, 0),
          "the maintenance class's global queue is the background one");
    dispatch_queue_attr_t maintenance = dispatch_queue_attr_make_with_qos_class(NULL, QOS_CLASS_MAINTENANCE_VALUE, -3);
    CHECK(maintenance != NULL, "an attribute of the maintenance class");
    if (maintenance) {
        dispatch_queue_t queue = dispatch_queue_create("edges.maintenance", maintenance);
        CHECK(dispatch_queue_get_qos_class(queue, &relative) == QOS_CLASS_BACKGROUND && relative == -3,
              "a queue of the maintenance class runs at background");
        dispatch_release(queue);
    }
    dispatch_queue_t unspecified = dispatch_queue_create("edges.unspecified",
        dispatch_queue_attr_make_with_qos_class(NULL, QOS_CLASS_UNSPECIFIED, -1));
    dispatch_qos_class_t unspecified_class = dispatch_queue_get_qos_class(unspecified, &relative);
    CHECK(unspecified_class == QOS_CLASS_UNSPECIFIED && relative == 0, "a relative priority without a class is 0 (%d)", relative);
    dispatch_release(unspecified);
    dispatch_release(plain);
    dispatch_release(utility);
}

/// The global queue a queue's work runs "on" for dispatch_assert_queue: a serial queue's
/// default target is the overcommitting default global queue, a concurrent queue's the
/// plain one, and the main thread runs on the main queue and so on the overcommitting one.
/// A wrong answer traps here.
static void test_global_queue_identity(void) {
    dispatch_queue_t overcommit = dispatch_get_global_queue(0, 2), plain = dispatch_get_global_queue(0, 0);
    dispatch_assert_queue(overcommit);
    dispatch_assert_queue_not(plain);
    dispatch_queue_t serial = dispatch_queue_create("identity-serial", NULL);
    dispatch_queue_t concurrent = dispatch_queue_create("identity-concurrent", DISPATCH_QUEUE_CONCURRENT);
    dispatch_sync(serial, ^{ dispatch_assert_queue(overcommit); dispatch_assert_queue_not(plain); });
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    dispatch_async(serial, ^{
        dispatch_assert_queue(overcommit);
        dispatch_assert_queue_not(plain);
        dispatch_semaphore_signal(done);
    });
    CHECK(dispatch_semaphore_wait(done, in_seconds(10)) == 0, "a serial queue's block ran");
    dispatch_async(concurrent, ^{
        dispatch_assert_queue(plain);
        dispatch_assert_queue_not(overcommit);
        dispatch_semaphore_signal(done);
    });
    CHECK(dispatch_semaphore_wait(done, in_seconds(10)) == 0, "a concurrent queue's block ran");
    dispatch_release(serial);
    dispatch_release(concurrent);
    dispatch_release(done);
}

/// An idle queue is retargeted before dispatch_set_target_queue returns: its next block
/// runs on the new target while the old one is suspended.
static void test_idle_queue_moves_at_once(void) {
    dispatch_queue_t old_target = dispatch_queue_create("old-target", NULL);
    dispatch_queue_t new_target = dispatch_queue_create("new-target", NULL);
    dispatch_queue_t queue = dispatch_queue_create("moving", NULL);
    dispatch_set_target_queue(queue, old_target);
    dispatch_sync(queue, ^{});
    dispatch_suspend(old_target);
    dispatch_set_target_queue(queue, new_target);
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    dispatch_async(queue, ^{
        dispatch_assert_queue(new_target);
        dispatch_semaphore_signal(done);
    });
    CHECK(dispatch_semaphore_wait(done, in_seconds(10)) == 0, "an idle queue's next block runs on its new target, the old one suspended");
    dispatch_resume(old_target);
    dispatch_release(queue);
    dispatch_release(old_target);
    dispatch_release(new_target);
    dispatch_release(done);
}

int main(void) {
    test_main_and_global_queues_ignore_changes();
    test_current_queue_of_global_work();
    test_finalizers_follow_the_target();
    test_qos_classes();
    test_global_queue_identity();
    test_idle_queue_moves_at_once();
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
