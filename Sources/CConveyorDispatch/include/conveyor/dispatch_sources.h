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

/* Conveyor's C API, part 4 of 5: sources (timers, signals, descriptors,
 * processes, files, memory pressure and application-defined events), and the
 * type-generic wait/notify/cancel calls.
 * Written for Conveyor; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_SOURCES_H
#define CONVEYOR_DISPATCH_SOURCES_H

#include <conveyor/dispatch_sync.h>

CONVEYOR_C_BEGIN

/* The kinds of source: each is the address of a constant record. */
#define CNV_SOURCE_TYPE(kind) (&_dispatch_source_type_##kind)
CNV_API const struct dispatch_source_type_s _dispatch_source_type_data_add;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_data_or;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_data_replace;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_mach_send;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_mach_recv;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_memorypressure;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_proc;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_read;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_signal;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_timer;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_vnode;
CNV_API const struct dispatch_source_type_s _dispatch_source_type_write;

/* Application events merged with dispatch_source_merge_data: summed, or-ed, or
 * the last value kept. */
#define DISPATCH_SOURCE_TYPE_DATA_ADD CNV_SOURCE_TYPE(data_add)
#define DISPATCH_SOURCE_TYPE_DATA_OR CNV_SOURCE_TYPE(data_or)
#define DISPATCH_SOURCE_TYPE_DATA_REPLACE CNV_SOURCE_TYPE(data_replace)
/* Mach ports exist on Darwin only; creating these sources fails (NULL). */
#define DISPATCH_SOURCE_TYPE_MACH_SEND CNV_SOURCE_TYPE(mach_send)
#define DISPATCH_SOURCE_TYPE_MACH_RECV CNV_SOURCE_TYPE(mach_recv)
/* The system's memory pressure (mask: DISPATCH_MEMORYPRESSURE_*). */
#define DISPATCH_SOURCE_TYPE_MEMORYPRESSURE CNV_SOURCE_TYPE(memorypressure)
/* A process, by pid (mask: DISPATCH_PROC_*). */
#define DISPATCH_SOURCE_TYPE_PROC CNV_SOURCE_TYPE(proc)
/* A descriptor ready to read or to write, by descriptor. */
#define DISPATCH_SOURCE_TYPE_READ CNV_SOURCE_TYPE(read)
#define DISPATCH_SOURCE_TYPE_WRITE CNV_SOURCE_TYPE(write)
/* A signal, by number (the source counts deliveries). */
#define DISPATCH_SOURCE_TYPE_SIGNAL CNV_SOURCE_TYPE(signal)
/* A timer (dispatch_source_set_timer; mask: DISPATCH_TIMER_STRICT). */
#define DISPATCH_SOURCE_TYPE_TIMER CNV_SOURCE_TYPE(timer)
/* Changes to an open file, by descriptor (mask: DISPATCH_VNODE_*). */
#define DISPATCH_SOURCE_TYPE_VNODE CNV_SOURCE_TYPE(vnode)

/* Mask and data flags, by source type. */
typedef unsigned long dispatch_source_mach_send_flags_t;
#define DISPATCH_MACH_SEND_DEAD 0x1

typedef unsigned long dispatch_source_memorypressure_flags_t;
#define DISPATCH_MEMORYPRESSURE_NORMAL 0x01
#define DISPATCH_MEMORYPRESSURE_WARN 0x02
#define DISPATCH_MEMORYPRESSURE_CRITICAL 0x04

typedef unsigned long dispatch_source_proc_flags_t;
#define DISPATCH_PROC_EXIT 0x80000000
#define DISPATCH_PROC_FORK 0x40000000
#define DISPATCH_PROC_EXEC 0x20000000
#define DISPATCH_PROC_SIGNAL 0x08000000

typedef unsigned long dispatch_source_vnode_flags_t;
#define DISPATCH_VNODE_DELETE 0x1
#define DISPATCH_VNODE_WRITE 0x2
#define DISPATCH_VNODE_EXTEND 0x4
#define DISPATCH_VNODE_ATTRIB 0x8
#define DISPATCH_VNODE_LINK 0x10
#define DISPATCH_VNODE_RENAME 0x20
#define DISPATCH_VNODE_REVOKE 0x40
#define DISPATCH_VNODE_FUNLOCK 0x100

typedef unsigned long dispatch_source_timer_flags_t;
#define DISPATCH_TIMER_STRICT 0x1

/* A new source, suspended until dispatch_activate or dispatch_resume; NULL
 * when the type, handle or mask is not valid here. Handlers run on `queue`
 * (NULL: the default global queue). */
CNV_API dispatch_source_t dispatch_source_create(dispatch_source_type_t type, uintptr_t handle,
                                                 uintptr_t mask, dispatch_queue_t queue);

/* Handlers as C functions: called with the source's context. */
CNV_API void dispatch_source_set_event_handler_f(dispatch_source_t source, dispatch_function_t handler);
CNV_API void dispatch_source_set_cancel_handler_f(dispatch_source_t source, dispatch_function_t handler);
CNV_API void dispatch_source_set_registration_handler_f(dispatch_source_t source, dispatch_function_t handler);
#ifdef __BLOCKS__
CNV_API void dispatch_source_set_event_handler(dispatch_source_t source, dispatch_block_t handler);
CNV_API void dispatch_source_set_cancel_handler(dispatch_source_t source, dispatch_block_t handler);
CNV_API void dispatch_source_set_registration_handler(dispatch_source_t source, dispatch_block_t handler);
#endif

/* Stops further events; the cancel handler runs once no event handler does. */
CNV_API void dispatch_source_cancel(dispatch_source_t source);
CNV_API intptr_t dispatch_source_testcancel(dispatch_source_t source);

/* What the source was made with, and the data of the event being handled. */
CNV_API uintptr_t dispatch_source_get_handle(dispatch_source_t source);
CNV_API uintptr_t dispatch_source_get_mask(dispatch_source_t source);
CNV_API uintptr_t dispatch_source_get_data(dispatch_source_t source);
/* Delivers an application event to a DATA_ADD / DATA_OR / DATA_REPLACE source. */
CNV_API void dispatch_source_merge_data(dispatch_source_t source, uintptr_t value);

/* First fire at `start`, then every `interval` ns (DISPATCH_TIME_FOREVER:
 * once), give or take `leeway` ns. */
CNV_API void dispatch_source_set_timer(dispatch_source_t source, dispatch_time_t start,
                                       uint64_t interval, uint64_t leeway);

CONVEYOR_C_END

/* ---- Type-generic calls (C11 _Generic) ----
 * dispatch_wait, dispatch_notify, dispatch_cancel and dispatch_testcancel pick
 * the call of the argument's type: block object, group, semaphore, source. */
#if !defined(__cplusplus) && ((defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) || \
    CNV_HAS_EXTENSION(c_generic_selections))
#ifdef __BLOCKS__
#define CNV_GENERIC_BLOCK(call) dispatch_block_t: call,
#else
#define CNV_GENERIC_BLOCK(call)
#endif
#define dispatch_wait(object, timeout) \
    _Generic((object), CNV_GENERIC_BLOCK(dispatch_block_wait) \
             dispatch_group_t: dispatch_group_wait, \
             dispatch_semaphore_t: dispatch_semaphore_wait)((object), (timeout))
#ifdef __BLOCKS__
#define dispatch_notify(object, queue, notification) \
    _Generic((object), dispatch_block_t: dispatch_block_notify, \
             dispatch_group_t: dispatch_group_notify)((object), (queue), (notification))
#endif
#define dispatch_cancel(object) \
    _Generic((object), CNV_GENERIC_BLOCK(dispatch_block_cancel) \
             dispatch_source_t: dispatch_source_cancel)((object))
#define dispatch_testcancel(object) \
    _Generic((object), CNV_GENERIC_BLOCK(dispatch_block_testcancel) \
             dispatch_source_t: dispatch_source_testcancel)((object))
#endif

#endif /* CONVEYOR_DISPATCH_SOURCES_H */
