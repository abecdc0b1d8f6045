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

// See include/compose_c.h.
#include <dispatch/dispatch.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "compose_c.h"

#ifndef QOS_CLASS_BACKGROUND
// libdispatch's Linux headers leave out <sys/qos.h>; dispatch_get_global_queue takes its values.
#define QOS_CLASS_BACKGROUND 0x09
#define QOS_CLASS_UTILITY 0x11
#define QOS_CLASS_DEFAULT 0x15
#define QOS_CLASS_USER_INITIATED 0x19
#define QOS_CLASS_USER_INTERACTIVE 0x21
#endif

// libdispatch's private DISPATCH_QUEUE_OVERCOMMIT.
#define OVERCOMMIT 2

// `qos`: 0-3 for the classes below; bit 2 asks for the overcommitting global queue.
static dispatch_queue_t global_queue(int qos) {
    static const long classes[] = {
        QOS_CLASS_BACKGROUND, QOS_CLASS_UTILITY, QOS_CLASS_DEFAULT, QOS_CLASS_USER_INITIATED
    };
    return dispatch_get_global_queue(classes[qos & 3], (qos & 4) ? OVERCOMMIT : 0);
}

void *compose_c_queue_create(const char *label, int concurrent, int inactive, void *target, int qos) {
    dispatch_queue_attr_t attr = concurrent ? DISPATCH_QUEUE_CONCURRENT : DISPATCH_QUEUE_SERIAL;
    if (inactive) attr = dispatch_queue_attr_make_initially_inactive(attr);
    dispatch_queue_t to = target ? (dispatch_queue_t)target : global_queue(qos);
    return dispatch_queue_create_with_target(label, attr, to);
}

void *compose_c_global(int qos) { return global_queue(qos); }

void *compose_c_queue_create_retargetable(const char *label) { return dispatch_queue_create(label, DISPATCH_QUEUE_SERIAL); }

void compose_c_set_target(void *queue, void *target) { dispatch_set_target_queue((dispatch_queue_t)queue, (dispatch_queue_t)target); }

// `dispatch_queue_set_width` is in libdispatch's private headers, which the toolchain does
// not install; libdispatch exports it, and Conveyor's C API has it under its `cnv_` prefix.
#ifdef __CONVEYOR_DISPATCH__
void cnv_dispatch_queue_set_width(dispatch_queue_t queue, long width);
#define dispatch_queue_set_width cnv_dispatch_queue_set_width
#else
void dispatch_queue_set_width(dispatch_queue_t queue, long width);
#endif

void compose_c_set_width(void *queue, long width) { dispatch_queue_set_width((dispatch_queue_t)queue, width); }

static char specific_key;

void compose_c_set_specific(void *queue, long value) {
    dispatch_queue_set_specific((dispatch_queue_t)queue, &specific_key, (void *)(value + 1), NULL);
}

long compose_c_get_specific(void) { return (long)dispatch_get_specific(&specific_key) - 1; }

void compose_c_assert_queue(void *queue, int kind) {
    switch (kind) {
    case 0: dispatch_assert_queue((dispatch_queue_t)queue); break;
    case 1: dispatch_assert_queue_not((dispatch_queue_t)queue); break;
    default: dispatch_assert_queue_barrier((dispatch_queue_t)queue); break;
    }
}

void compose_c_activate(void *queue) { dispatch_activate((dispatch_queue_t)queue); }
void compose_c_suspend(void *queue) { dispatch_suspend((dispatch_queue_t)queue); }
void compose_c_resume(void *queue) { dispatch_resume((dispatch_queue_t)queue); }
void compose_c_release(void *object) { dispatch_release((dispatch_queue_t)object); }

void compose_c_set_finalizer(void *object, void *context, compose_function_t finalizer) {
    dispatch_set_context((dispatch_queue_t)object, context);
    dispatch_set_finalizer_f((dispatch_queue_t)object, finalizer);
}

void *compose_c_get_context(void *object) { return dispatch_get_context((dispatch_queue_t)object); }

void compose_c_async(void *queue, int barrier, void *context, compose_function_t work) {
    if (barrier) dispatch_barrier_async_f((dispatch_queue_t)queue, context, work);
    else dispatch_async_f((dispatch_queue_t)queue, context, work);
}

void compose_c_sync(void *queue, int barrier, void *context, compose_function_t work) {
    if (barrier) dispatch_barrier_sync_f((dispatch_queue_t)queue, context, work);
    else dispatch_sync_f((dispatch_queue_t)queue, context, work);
}

void compose_c_after(void *queue, uint64_t delay_ns, int wall, void *context, compose_function_t work) {
    dispatch_time_t when = wall ? dispatch_walltime(NULL, (int64_t)delay_ns) : dispatch_time(DISPATCH_TIME_NOW, (int64_t)delay_ns);
    dispatch_after_f(when, (dispatch_queue_t)queue, context, work);
}

void *compose_c_group_create(void) { return dispatch_group_create(); }

void compose_c_group_async(void *group, void *queue, void *context, compose_function_t work) {
    dispatch_group_async_f((dispatch_group_t)group, (dispatch_queue_t)queue, context, work);
}

void compose_c_group_enter(void *group) { dispatch_group_enter((dispatch_group_t)group); }
void compose_c_group_leave(void *group) { dispatch_group_leave((dispatch_group_t)group); }

void compose_c_group_notify(void *group, void *queue, void *context, compose_function_t work) {
    dispatch_group_notify_f((dispatch_group_t)group, (dispatch_queue_t)queue, context, work);
}

void *compose_c_semaphore_create(long value) { return dispatch_semaphore_create(value); }

long compose_c_semaphore_wait(void *semaphore, uint64_t timeout_ns) {
    dispatch_time_t deadline = timeout_ns == UINT64_MAX ? DISPATCH_TIME_FOREVER : dispatch_time(DISPATCH_TIME_NOW, (int64_t)timeout_ns);
    return dispatch_semaphore_wait((dispatch_semaphore_t)semaphore, deadline);
}

void compose_c_semaphore_signal(void *semaphore) { dispatch_semaphore_signal((dispatch_semaphore_t)semaphore); }

long compose_c_group_wait(void *group, uint64_t timeout_ns) {
    return dispatch_group_wait((dispatch_group_t)group, dispatch_time(DISPATCH_TIME_NOW, (int64_t)timeout_ns));
}

void compose_c_apply(size_t iterations, void *context, compose_apply_function_t work) {
    dispatch_apply_f(iterations, DISPATCH_APPLY_AUTO, context, work);
}

void compose_c_apply_on(size_t iterations, void *queue, void *context, compose_apply_function_t work) {
    dispatch_apply_f(iterations, (dispatch_queue_t)queue, context, work);
}

void *compose_c_timer_create(void *queue, uint64_t start_ns, int wall, uint64_t interval_ns, uint64_t leeway_ns,
                             void *context, compose_function_t event, compose_function_t cancel) {
    dispatch_source_t source = dispatch_source_create(DISPATCH_SOURCE_TYPE_TIMER, 0, 0, (dispatch_queue_t)queue);
    dispatch_set_context(source, context);
    dispatch_source_set_event_handler_f(source, event);
    dispatch_source_set_cancel_handler_f(source, cancel);
    dispatch_time_t start = wall ? dispatch_walltime(NULL, (int64_t)start_ns) : dispatch_time(DISPATCH_TIME_NOW, (int64_t)start_ns);
    dispatch_source_set_timer(source, start, interval_ns, leeway_ns);
    return source;
}

void *compose_c_descriptor_source_create(void *queue, int descriptor, int write, void *context,
                                         compose_function_t event, compose_function_t cancel) {
    dispatch_source_t source = dispatch_source_create(write ? DISPATCH_SOURCE_TYPE_WRITE : DISPATCH_SOURCE_TYPE_READ,
                                                      (uintptr_t)descriptor, 0, (dispatch_queue_t)queue);
    dispatch_set_context(source, context);
    dispatch_source_set_event_handler_f(source, event);
    dispatch_source_set_cancel_handler_f(source, cancel);
    return source;
}

void compose_c_source_resume(void *source) { dispatch_resume((dispatch_source_t)source); }
void compose_c_source_cancel(void *source) { dispatch_source_cancel((dispatch_source_t)source); }

// Channels (DispatchIO): their handlers are blocks, so the shim is built with -fblocks.
void *compose_c_io_create(void *queue, int descriptor, void *context, compose_io_cleanup_t cleanup) {
    return dispatch_io_create(DISPATCH_IO_STREAM, descriptor, (dispatch_queue_t)queue, ^(int error) {
        cleanup(context, error);
    });
}

void compose_c_io_set_high_water(void *channel, size_t high_water) {
    dispatch_io_set_high_water((dispatch_io_t)channel, high_water);
}

void compose_c_io_read(void *channel, void *queue, void *context, compose_io_handler_t handler) {
    dispatch_io_read((dispatch_io_t)channel, 0, SIZE_MAX, (dispatch_queue_t)queue,
                     ^(bool done, dispatch_data_t data, int error) {
        const void *bytes = NULL;
        size_t count = 0;
        // A contiguous copy of every region the piece holds (or the piece itself).
        dispatch_data_t map = data ? dispatch_data_create_map(data, &bytes, &count) : NULL;
        handler(context, done, bytes, count, error);
        if (map) dispatch_release(map);
    });
}

void compose_c_io_write(void *channel, void *queue, const void *bytes, size_t count, void *context,
                        compose_io_handler_t handler) {
    dispatch_data_t data = dispatch_data_create(bytes, count, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    dispatch_io_write((dispatch_io_t)channel, 0, data, (dispatch_queue_t)queue,
                      ^(bool done, dispatch_data_t remaining, int error) {
        handler(context, done, NULL, remaining ? dispatch_data_get_size(remaining) : 0, error);
    });
    dispatch_release(data);
}

void compose_c_io_close(void *channel) { dispatch_io_close((dispatch_io_t)channel, 0); }

// Block objects (`dispatch_block_create`): the C API's work items.
extern void _Block_release(const void *block);

void *compose_c_block_create(int barrier, void *context, compose_function_t work) {
    return dispatch_block_create(barrier ? DISPATCH_BLOCK_BARRIER : 0, ^{ work(context); });
}

void compose_c_block_async(void *queue, void *block) { dispatch_async((dispatch_queue_t)queue, (dispatch_block_t)block); }
void compose_c_block_cancel(void *block) { dispatch_block_cancel((dispatch_block_t)block); }
long compose_c_block_testcancel(void *block) { return dispatch_block_testcancel((dispatch_block_t)block); }

void compose_c_block_notify(void *block, void *queue, void *context, compose_function_t work) {
    dispatch_block_notify((dispatch_block_t)block, (dispatch_queue_t)queue, ^{ work(context); });
}

long compose_c_block_wait(void *block, uint64_t timeout_ns) {
    return dispatch_block_wait((dispatch_block_t)block, dispatch_time(DISPATCH_TIME_NOW, (int64_t)timeout_ns));
}

void compose_c_block_release(void *block) { _Block_release(block); }

void compose_c_async_qos(void *queue, int barrier, int qos, int flag, void *context, compose_function_t work) {
    static const unsigned classes[] = {QOS_CLASS_BACKGROUND, QOS_CLASS_UTILITY, QOS_CLASS_DEFAULT,
                                                   QOS_CLASS_USER_INITIATED, QOS_CLASS_USER_INTERACTIVE};
    static const dispatch_block_flags_t flags[] = {0, DISPATCH_BLOCK_ENFORCE_QOS_CLASS, DISPATCH_BLOCK_INHERIT_QOS_CLASS,
                                                   DISPATCH_BLOCK_DETACHED};
    dispatch_block_t block = dispatch_block_create_with_qos_class(flags[flag], (dispatch_qos_class_t)classes[qos], 0, ^{ work(context); });
    if (barrier) dispatch_barrier_async((dispatch_queue_t)queue, block);
    else dispatch_async((dispatch_queue_t)queue, block);
    _Block_release(block);
}

int compose_thread_id(void) { return (int)syscall(SYS_gettid); }
