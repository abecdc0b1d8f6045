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

/* Conveyor's C API, part 2 of 5: what every object does (reference counts,
 * context and finalizer, suspension, target queue) and the queues.
 * Written for Conveyor; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_OBJECTS_H
#define CONVEYOR_DISPATCH_OBJECTS_H

#include <conveyor/dispatch_types.h>

CONVEYOR_C_BEGIN

/* ---- Every object ---- */

/* One more reference (global queues and the main queue ignore it). */
CNV_API void dispatch_retain(dispatch_object_t object);
/* One reference less; the last one frees the object once its work is done. */
CNV_API void dispatch_release(dispatch_object_t object);

/* The application's pointer attached to an object (NULL at first). */
CNV_API void *dispatch_get_context(dispatch_object_t object);
CNV_API void dispatch_set_context(dispatch_object_t object, void *context);
/* Called with the context (if not NULL) on the target queue after the last release. */
CNV_API void dispatch_set_finalizer_f(dispatch_object_t object, dispatch_function_t finalizer);

/* Starts an object made inactive. */
CNV_API void dispatch_activate(dispatch_object_t object);
/* Suspension counts: each suspend needs a resume before work runs again. */
CNV_API void dispatch_suspend(dispatch_object_t object);
CNV_API void dispatch_resume(dispatch_object_t object);

/* Prints a line about the object to standard error. */
CNV_API void dispatch_debug(dispatch_object_t object, const char *message, ...);
CNV_API void dispatch_debugv(dispatch_object_t object, const char *message, va_list arguments);

/* ---- Queues ---- */

/* Attributes: NULL (serial) or DISPATCH_QUEUE_CONCURRENT, refined below. */
CNV_API struct dispatch_queue_attr_s _dispatch_queue_attr_concurrent;
#define DISPATCH_QUEUE_SERIAL NULL
#define DISPATCH_QUEUE_CONCURRENT \
    CNV_STATIC_HANDLE(dispatch_queue_attr_t, _dispatch_queue_attr_concurrent)
#define CNV_INACTIVE(attr) dispatch_queue_attr_make_initially_inactive(attr)
#define DISPATCH_QUEUE_SERIAL_INACTIVE CNV_INACTIVE(DISPATCH_QUEUE_SERIAL)
#define DISPATCH_QUEUE_CONCURRENT_INACTIVE CNV_INACTIVE(DISPATCH_QUEUE_CONCURRENT)

/* Autorelease frequencies (accepted; Linux has no autorelease pools). */
typedef unsigned long dispatch_autorelease_frequency_t;
#define DISPATCH_AUTORELEASE_FREQUENCY_INHERIT 0
#define DISPATCH_AUTORELEASE_FREQUENCY_WORK_ITEM 1
#define DISPATCH_AUTORELEASE_FREQUENCY_NEVER 2
#define CNV_POOLED(attr) \
    dispatch_queue_attr_make_with_autorelease_frequency((attr), DISPATCH_AUTORELEASE_FREQUENCY_WORK_ITEM)
#define DISPATCH_QUEUE_SERIAL_WITH_AUTORELEASE_POOL CNV_POOLED(DISPATCH_QUEUE_SERIAL)
#define DISPATCH_QUEUE_CONCURRENT_WITH_AUTORELEASE_POOL CNV_POOLED(DISPATCH_QUEUE_CONCURRENT)

CNV_API dispatch_queue_attr_t dispatch_queue_attr_make_initially_inactive(dispatch_queue_attr_t attr);
CNV_API dispatch_queue_attr_t dispatch_queue_attr_make_with_autorelease_frequency(
    dispatch_queue_attr_t attr, dispatch_autorelease_frequency_t frequency);
CNV_API dispatch_queue_attr_t dispatch_queue_attr_make_with_qos_class(
    dispatch_queue_attr_t attr, dispatch_qos_class_t qos_class, int relative_priority);

/* New queues (released with dispatch_release). The label is copied. */
#define DISPATCH_TARGET_QUEUE_DEFAULT NULL
CNV_API dispatch_queue_t dispatch_queue_create(const char *label, dispatch_queue_attr_t attr);
CNV_API dispatch_queue_t dispatch_queue_create_with_target(
    const char *label, dispatch_queue_attr_t attr, dispatch_queue_t target);
CNV_API void dispatch_set_target_queue(dispatch_object_t object, dispatch_queue_t queue);

/* Labels and QoS. DISPATCH_CURRENT_QUEUE_LABEL asks for the current queue's label. */
#define DISPATCH_CURRENT_QUEUE_LABEL NULL
CNV_API const char *dispatch_queue_get_label(dispatch_queue_t queue);
CNV_API dispatch_qos_class_t dispatch_queue_get_qos_class(dispatch_queue_t queue, int *relative_priority_ptr);

/* The global concurrent queues, by QoS class or by the older priorities. */
typedef long dispatch_queue_priority_t;
#define DISPATCH_QUEUE_PRIORITY_HIGH 2
#define DISPATCH_QUEUE_PRIORITY_DEFAULT 0
#define DISPATCH_QUEUE_PRIORITY_LOW (-2)
#define DISPATCH_QUEUE_PRIORITY_BACKGROUND INT16_MIN
CNV_API dispatch_queue_global_t dispatch_get_global_queue(intptr_t identifier, uintptr_t flags);

/* The main queue is a static object, so this call costs nothing. */
CNV_API struct dispatch_queue_s _dispatch_main_q;
CNV_STATIC_INLINE dispatch_queue_main_t dispatch_get_main_queue(void) {
    return CNV_STATIC_HANDLE(dispatch_queue_main_t, _dispatch_main_q);
}
/* Deprecated by libdispatch, kept for old programs. */
CNV_API dispatch_queue_t dispatch_get_current_queue(void);

/* Drains the main queue on the calling (main) thread; never returns. */
CNV_API CNV_NORETURN_FN void dispatch_main(void);

/* ---- Submitting work: the C function forms ---- */
CNV_API void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
CNV_API void dispatch_sync_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
CNV_API void dispatch_barrier_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
CNV_API void dispatch_barrier_sync_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
CNV_API void dispatch_after_f(dispatch_time_t when, dispatch_queue_t queue, void *context,
                              dispatch_function_t work);
/* Runs `work(context, i)` for i in 0..<iterations; DISPATCH_APPLY_AUTO picks the queue. */
#define DISPATCH_APPLY_AUTO ((dispatch_queue_t)0)
#define DISPATCH_APPLY_AUTO_AVAILABLE 1
CNV_API void dispatch_apply_f(size_t iterations, dispatch_queue_t queue, void *context,
                              void (*work)(void *, size_t));

/* ---- Submitting work: the block forms ---- */
#ifdef __BLOCKS__
CNV_API void dispatch_async(dispatch_queue_t queue, dispatch_block_t block);
CNV_API void dispatch_sync(dispatch_queue_t queue, CNV_NOESCAPE dispatch_block_t block);
CNV_API void dispatch_barrier_async(dispatch_queue_t queue, dispatch_block_t block);
CNV_API void dispatch_barrier_sync(dispatch_queue_t queue, CNV_NOESCAPE dispatch_block_t block);
CNV_API void dispatch_after(dispatch_time_t when, dispatch_queue_t queue, dispatch_block_t block);
CNV_API void dispatch_apply(size_t iterations, dispatch_queue_t queue, CNV_NOESCAPE void (^block)(size_t));
#endif

/* ---- Queue-specific values ---- */
CNV_API void dispatch_queue_set_specific(dispatch_queue_t queue, const void *key, void *context,
                                         dispatch_function_t destructor);
CNV_API void *dispatch_queue_get_specific(dispatch_queue_t queue, const void *key);
/* Looks the key up on the current queue and then its targets. */
CNV_API void *dispatch_get_specific(const void *key);

/* ---- Assertions: trap unless the caller runs as stated ---- */
CNV_API void dispatch_assert_queue(dispatch_queue_t queue);
CNV_API void dispatch_assert_queue_barrier(dispatch_queue_t queue);
CNV_API void dispatch_assert_queue_not(dispatch_queue_t queue);
/* The _debug forms check only in builds without NDEBUG (the queue is still
 * evaluated for its type, never called). */
#ifndef NDEBUG
#define dispatch_assert_queue_debug(queue) dispatch_assert_queue(queue)
#define dispatch_assert_queue_barrier_debug(queue) dispatch_assert_queue_barrier(queue)
#define dispatch_assert_queue_not_debug(queue) dispatch_assert_queue_not(queue)
#else
#define CNV_UNCHECKED(queue) ((void)sizeof((queue) == (dispatch_queue_t)0))
#define dispatch_assert_queue_debug(queue) CNV_UNCHECKED(queue)
#define dispatch_assert_queue_barrier_debug(queue) CNV_UNCHECKED(queue)
#define dispatch_assert_queue_not_debug(queue) CNV_UNCHECKED(queue)
#endif

CONVEYOR_C_END

#endif /* CONVEYOR_DISPATCH_OBJECTS_H */
