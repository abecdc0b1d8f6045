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

/* Conveyor's C API, part 3 of 5: groups, semaphores, one-time initialisation
 * and block objects (work items made from blocks).
 * Written for Conveyor; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_SYNC_H
#define CONVEYOR_DISPATCH_SYNC_H

#include <conveyor/dispatch_objects.h>

CONVEYOR_C_BEGIN

/* ---- Groups: wait for, or be told about, a set of work ---- */
CNV_API dispatch_group_t dispatch_group_create(void);
CNV_API void dispatch_group_async_f(dispatch_group_t group, dispatch_queue_t queue, void *context,
                                    dispatch_function_t work);
CNV_API void dispatch_group_notify_f(dispatch_group_t group, dispatch_queue_t queue, void *context,
                                     dispatch_function_t work);
/* 0 once the group is empty, non-zero if `timeout` passed first. */
CNV_API intptr_t dispatch_group_wait(dispatch_group_t group, dispatch_time_t timeout);
CNV_API void dispatch_group_enter(dispatch_group_t group);
CNV_API void dispatch_group_leave(dispatch_group_t group);
#ifdef __BLOCKS__
CNV_API void dispatch_group_async(dispatch_group_t group, dispatch_queue_t queue, dispatch_block_t block);
CNV_API void dispatch_group_notify(dispatch_group_t group, dispatch_queue_t queue, dispatch_block_t block);
#endif

/* ---- Counting semaphores ---- */
CNV_API dispatch_semaphore_t dispatch_semaphore_create(intptr_t value);
/* 0 when a unit was taken, non-zero if `timeout` passed first. */
CNV_API intptr_t dispatch_semaphore_wait(dispatch_semaphore_t dsema, dispatch_time_t timeout);
/* Non-zero when the signal woke a waiter. */
CNV_API intptr_t dispatch_semaphore_signal(dispatch_semaphore_t dsema);

/* ---- Once ----
 * The predicate must be a zero-initialised static or global. */
typedef intptr_t dispatch_once_t;
CNV_API void dispatch_once_f(dispatch_once_t *predicate, void *context, dispatch_function_t function);
#ifdef __BLOCKS__
CNV_API void dispatch_once(dispatch_once_t *predicate, CNV_NOESCAPE dispatch_block_t block);
#endif

/* On x86, whose loads are ordered, a finished predicate (all ones, stored last
 * by the library) is read inline and the call skipped. */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
CNV_STATIC_INLINE int cnv_once_finished(dispatch_once_t *predicate) {
    const volatile dispatch_once_t *word = predicate;
    int finished = __builtin_expect(*word == -1, 1) != 0;   /* all ones: done */
    __asm__ __volatile__("" ::: "memory");
    return finished;
}
CNV_STATIC_INLINE void cnv_once_f_inline(dispatch_once_t *predicate, void *context, dispatch_function_t function) {
    if (!cnv_once_finished(predicate)) dispatch_once_f(predicate, context, function);
}
#undef dispatch_once_f
#define dispatch_once_f cnv_once_f_inline
#ifdef __BLOCKS__
CNV_STATIC_INLINE void cnv_once_inline(dispatch_once_t *predicate, CNV_NOESCAPE dispatch_block_t block) {
    if (!cnv_once_finished(predicate)) dispatch_once(predicate, block);
}
#undef dispatch_once
#define dispatch_once cnv_once_inline
#endif
#endif

/* ---- Block objects ---- */
typedef unsigned long dispatch_block_flags_t;
#define DISPATCH_BLOCK_BARRIER 0x1ul
#define DISPATCH_BLOCK_DETACHED 0x2ul
#define DISPATCH_BLOCK_ASSIGN_CURRENT 0x4ul
#define DISPATCH_BLOCK_NO_QOS_CLASS 0x8ul
#define DISPATCH_BLOCK_INHERIT_QOS_CLASS 0x10ul
#define DISPATCH_BLOCK_ENFORCE_QOS_CLASS 0x20ul

#ifdef __BLOCKS__
/* A new heap block wrapping `block` as a work item: it can be waited on,
 * observed and cancelled. Release it with Block_release. */
CNV_API dispatch_block_t dispatch_block_create(dispatch_block_flags_t flags, dispatch_block_t block);
CNV_API dispatch_block_t dispatch_block_create_with_qos_class(dispatch_block_flags_t flags,
    dispatch_qos_class_t qos_class, int relative_priority, dispatch_block_t block);
/* Runs `block` as such a work item, on the calling thread. */
CNV_API void dispatch_block_perform(dispatch_block_flags_t flags, CNV_NOESCAPE dispatch_block_t block);
/* These take only blocks made by dispatch_block_create (anything else traps). */
CNV_API intptr_t dispatch_block_wait(dispatch_block_t block, dispatch_time_t timeout);
CNV_API void dispatch_block_notify(dispatch_block_t block, dispatch_queue_t queue,
                                   dispatch_block_t notification_block);
CNV_API void dispatch_block_cancel(dispatch_block_t block);
CNV_API intptr_t dispatch_block_testcancel(dispatch_block_t block);
#endif

CONVEYOR_C_END

#endif /* CONVEYOR_DISPATCH_SYNC_H */
