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

// The composition tester's C API calls (Tester/Compose/COps.swift): one source,
// compiled twice, against Conveyor's <dispatch/dispatch.h> (CComposeConveyor) and against
// the toolchain's libdispatch headers (CComposeDispatch). Objects are passed as `void *`
// so that the Swift side is the same for both.
#ifndef COMPOSE_C_H
#define COMPOSE_C_H

#include <stddef.h>
#include <stdint.h>

typedef void (*compose_function_t)(void *context);
typedef void (*compose_apply_function_t)(void *context, size_t iteration);

/// A queue: serial or concurrent, possibly initially inactive, targeting `target` or,
/// when it is NULL, the global queue of QoS class index `qos` (0 background ... 3 user-initiated;
/// plus 4 for the overcommitting global queue of that class).
void *compose_c_queue_create(const char *label, int concurrent, int inactive, void *target, int qos);
/// The global queue of QoS class index `qos`.
void *compose_c_global(int qos);
/// A serial queue made by `dispatch_queue_create` (no target given): one that
/// `dispatch_set_target_queue` may retarget while it is active.
void *compose_c_queue_create_retargetable(const char *label);
/// `dispatch_set_target_queue`.
void compose_c_set_target(void *queue, void *target);
/// libdispatch's private `dispatch_queue_set_width`: at most `width` of a concurrent
/// queue's blocks (and `sync` callers) run at once.
void compose_c_set_width(void *queue, long width);
/// `dispatch_queue_set_specific` under the shim's one key: `value` (stored as `value + 1`).
void compose_c_set_specific(void *queue, long value);
/// `dispatch_get_specific` of the shim's key: the value set, or -1 when none is seen.
long compose_c_get_specific(void);
/// `dispatch_assert_queue` (`kind` 0), `dispatch_assert_queue_not` (1) or
/// `dispatch_assert_queue_barrier` (2) of `queue`: each traps when it does not hold.
void compose_c_assert_queue(void *queue, int kind);
void compose_c_activate(void *queue);
void compose_c_suspend(void *queue);
void compose_c_resume(void *queue);
void compose_c_release(void *object);
/// Sets an object's context and a finalizer that receives it.
void compose_c_set_finalizer(void *object, void *context, compose_function_t finalizer);
void *compose_c_get_context(void *object);

void compose_c_async(void *queue, int barrier, void *context, compose_function_t work);
void compose_c_sync(void *queue, int barrier, void *context, compose_function_t work);
/// `dispatch_after_f` `delay_ns` from now, on the wall clock (`dispatch_walltime`) when `wall`.
void compose_c_after(void *queue, uint64_t delay_ns, int wall, void *context, compose_function_t work);

void *compose_c_semaphore_create(long value);
/// `dispatch_semaphore_wait` for at most `timeout_ns` (`UINT64_MAX`: for ever): 0 when it
/// got the semaphore.
long compose_c_semaphore_wait(void *semaphore, uint64_t timeout_ns);
void compose_c_semaphore_signal(void *semaphore);

void *compose_c_group_create(void);
void compose_c_group_async(void *group, void *queue, void *context, compose_function_t work);
void compose_c_group_enter(void *group);
void compose_c_group_leave(void *group);
void compose_c_group_notify(void *group, void *queue, void *context, compose_function_t work);
/// 0 when the group emptied within `timeout_ns`.
long compose_c_group_wait(void *group, uint64_t timeout_ns);

void compose_c_apply(size_t iterations, void *context, compose_apply_function_t work);
/// `dispatch_apply_f` onto `queue` (the iterations run on that queue).
void compose_c_apply_on(size_t iterations, void *queue, void *context, compose_apply_function_t work);

/// A repeating timer source on `queue` starting `start_ns` from now (on the wall clock
/// when `wall`), not yet resumed; its handlers get `context`.
void *compose_c_timer_create(void *queue, uint64_t start_ns, int wall, uint64_t interval_ns, uint64_t leeway_ns,
                             void *context, compose_function_t event, compose_function_t cancel);
/// A read source (a write source when `write`) on `descriptor` on `queue`, not yet
/// resumed; its handlers get `context`.
void *compose_c_descriptor_source_create(void *queue, int descriptor, int write, void *context,
                                         compose_function_t event, compose_function_t cancel);
void compose_c_source_resume(void *source);
void compose_c_source_cancel(void *source);

/// A channel's handler, called with each piece a read delivers (as contiguous bytes) or,
/// for a write, with NULL and the count of bytes not yet written.
typedef void (*compose_io_handler_t)(void *context, int done, const void *bytes, size_t count, int error);
typedef void (*compose_io_cleanup_t)(void *context, int error);
/// A stream channel (`dispatch_io_create`) on `descriptor`; its cleanup handler, a block of
/// `queue`, calls `cleanup` with `context`.
void *compose_c_io_create(void *queue, int descriptor, void *context, compose_io_cleanup_t cleanup);
void compose_c_io_set_high_water(void *channel, size_t high_water);
/// `dispatch_io_read` of everything up to the end of the file, handlers on `queue`.
void compose_c_io_read(void *channel, void *queue, void *context, compose_io_handler_t handler);
/// `dispatch_io_write` of a copy of `count` bytes, handlers on `queue`.
void compose_c_io_write(void *channel, void *queue, const void *bytes, size_t count, void *context,
                        compose_io_handler_t handler);
/// `dispatch_io_close` without `DISPATCH_IO_STOP`: what was asked still completes.
void compose_c_io_close(void *channel);

/// A block object (`dispatch_block_create`, `DISPATCH_BLOCK_BARRIER` when `barrier`)
/// calling `work` with `context`; released with `compose_c_block_release`.
void *compose_c_block_create(int barrier, void *context, compose_function_t work);
/// `dispatch_async` of a block object.
void compose_c_block_async(void *queue, void *block);
void compose_c_block_cancel(void *block);
long compose_c_block_testcancel(void *block);
void compose_c_block_notify(void *block, void *queue, void *context, compose_function_t work);
/// 0 when the block object ended (or was cancelled and taken out) within `timeout_ns`.
long compose_c_block_wait(void *block, uint64_t timeout_ns);
void compose_c_block_release(void *block);
/// `dispatch_async` (`dispatch_barrier_async` when `barrier`) of a block object made by
/// `dispatch_block_create_with_qos_class` with QoS class index `qos` (0 background ... 4
/// user-interactive) and flag `flag` (0 none, 1 enforce, 2 inherit, 3 detached).
void compose_c_async_qos(void *queue, int barrier, int qos, int flag, void *context, compose_function_t work);

/// The calling thread's kernel id (what /proc/self/task lists), for the hang report.
int compose_thread_id(void);

/// The crash note (crash_note.c): `compose_crash_note_install` makes a crash (SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT) write the seed of the program running then to
/// standard error before it goes on to the handler installed before (Swift's backtracer)
/// or the default action; the driver sets that seed before each program.
void compose_crash_note_install(void);
void compose_crash_note_set_seed(uint64_t seed);

#endif
