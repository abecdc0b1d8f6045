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

/*
 * Conveyor: the names of the portable libdispatch API mapped onto Conveyor's exports.
 *
 * Conveyor's library (libConveyorDispatch) exports every function and data symbol of the
 * API under the prefix `cnv_`, so that a program using it never meets the libdispatch that
 * every Swift process already loads (and Swift's runtime never calls Conveyor by
 * accident). This file, included first by <dispatch/dispatch.h>, renames the API's names
 * before Conveyor's headers (include/conveyor) declare them: a program written against
 * <dispatch/dispatch.h> compiles as is and links against Conveyor.
 */
#ifndef __CONVEYOR_DISPATCH_NAMES__
#define __CONVEYOR_DISPATCH_NAMES__

#define __CONVEYOR_DISPATCH__ 1

#define dispatch_activate cnv_dispatch_activate
#define dispatch_after cnv_dispatch_after
#define dispatch_after_f cnv_dispatch_after_f
#define dispatch_apply cnv_dispatch_apply
#define dispatch_apply_f cnv_dispatch_apply_f
#define dispatch_assert_queue cnv_dispatch_assert_queue
#define dispatch_assert_queue_barrier cnv_dispatch_assert_queue_barrier
#define dispatch_assert_queue_not cnv_dispatch_assert_queue_not
#define dispatch_async cnv_dispatch_async
#define dispatch_async_f cnv_dispatch_async_f
#define dispatch_barrier_async cnv_dispatch_barrier_async
#define dispatch_barrier_async_f cnv_dispatch_barrier_async_f
#define dispatch_barrier_sync cnv_dispatch_barrier_sync
#define dispatch_barrier_sync_f cnv_dispatch_barrier_sync_f
#define dispatch_block_cancel cnv_dispatch_block_cancel
#define dispatch_block_create cnv_dispatch_block_create
#define dispatch_block_create_with_qos_class cnv_dispatch_block_create_with_qos_class
#define dispatch_block_notify cnv_dispatch_block_notify
#define dispatch_block_perform cnv_dispatch_block_perform
#define dispatch_block_testcancel cnv_dispatch_block_testcancel
#define dispatch_block_wait cnv_dispatch_block_wait
#define dispatch_debug cnv_dispatch_debug
#define dispatch_debugv cnv_dispatch_debugv
#define dispatch_get_context cnv_dispatch_get_context
#define dispatch_get_current_queue cnv_dispatch_get_current_queue
#define dispatch_get_global_queue cnv_dispatch_get_global_queue
#define dispatch_get_main_queue cnv_dispatch_get_main_queue
#define dispatch_get_specific cnv_dispatch_get_specific
#define dispatch_group_async cnv_dispatch_group_async
#define dispatch_group_async_f cnv_dispatch_group_async_f
#define dispatch_group_create cnv_dispatch_group_create
#define dispatch_group_enter cnv_dispatch_group_enter
#define dispatch_group_leave cnv_dispatch_group_leave
#define dispatch_group_notify cnv_dispatch_group_notify
#define dispatch_group_notify_f cnv_dispatch_group_notify_f
#define dispatch_group_wait cnv_dispatch_group_wait
#define dispatch_main cnv_dispatch_main
#define dispatch_once cnv_dispatch_once
#define dispatch_once_f cnv_dispatch_once_f
#define dispatch_queue_attr_make_initially_inactive cnv_dispatch_queue_attr_make_initially_inactive
#define dispatch_queue_attr_make_with_autorelease_frequency cnv_dispatch_queue_attr_make_with_autorelease_frequency
#define dispatch_queue_attr_make_with_qos_class cnv_dispatch_queue_attr_make_with_qos_class
#define dispatch_queue_create cnv_dispatch_queue_create
#define dispatch_queue_create_with_target cnv_dispatch_queue_create_with_target
#define dispatch_queue_get_label cnv_dispatch_queue_get_label
#define dispatch_queue_get_qos_class cnv_dispatch_queue_get_qos_class
#define dispatch_queue_get_specific cnv_dispatch_queue_get_specific
#define dispatch_queue_set_specific cnv_dispatch_queue_set_specific
#define dispatch_release cnv_dispatch_release
#define dispatch_resume cnv_dispatch_resume
#define dispatch_retain cnv_dispatch_retain
#define dispatch_semaphore_create cnv_dispatch_semaphore_create
#define dispatch_semaphore_signal cnv_dispatch_semaphore_signal
#define dispatch_semaphore_wait cnv_dispatch_semaphore_wait
#define dispatch_set_context cnv_dispatch_set_context
#define dispatch_set_finalizer_f cnv_dispatch_set_finalizer_f
#define dispatch_set_target_queue cnv_dispatch_set_target_queue
#define dispatch_source_cancel cnv_dispatch_source_cancel
#define dispatch_source_create cnv_dispatch_source_create
#define dispatch_source_get_data cnv_dispatch_source_get_data
#define dispatch_source_get_handle cnv_dispatch_source_get_handle
#define dispatch_source_get_mask cnv_dispatch_source_get_mask
#define dispatch_source_merge_data cnv_dispatch_source_merge_data
#define dispatch_source_set_cancel_handler cnv_dispatch_source_set_cancel_handler
#define dispatch_source_set_cancel_handler_f cnv_dispatch_source_set_cancel_handler_f
#define dispatch_source_set_event_handler cnv_dispatch_source_set_event_handler
#define dispatch_source_set_event_handler_f cnv_dispatch_source_set_event_handler_f
#define dispatch_source_set_registration_handler cnv_dispatch_source_set_registration_handler
#define dispatch_source_set_registration_handler_f cnv_dispatch_source_set_registration_handler_f
#define dispatch_source_set_timer cnv_dispatch_source_set_timer
#define dispatch_source_testcancel cnv_dispatch_source_testcancel
#define dispatch_suspend cnv_dispatch_suspend
#define dispatch_sync cnv_dispatch_sync
#define dispatch_sync_f cnv_dispatch_sync_f
#define dispatch_time cnv_dispatch_time
#define dispatch_walltime cnv_dispatch_walltime
#define dispatch_data_apply cnv_dispatch_data_apply
#define dispatch_data_copy_region cnv_dispatch_data_copy_region
#define dispatch_data_create cnv_dispatch_data_create
#define dispatch_data_create_concat cnv_dispatch_data_create_concat
#define dispatch_data_create_map cnv_dispatch_data_create_map
#define dispatch_data_create_subrange cnv_dispatch_data_create_subrange
#define dispatch_data_get_size cnv_dispatch_data_get_size
#define dispatch_io_barrier cnv_dispatch_io_barrier
#define dispatch_io_close cnv_dispatch_io_close
#define dispatch_io_create cnv_dispatch_io_create
#define dispatch_io_create_with_io cnv_dispatch_io_create_with_io
#define dispatch_io_create_with_path cnv_dispatch_io_create_with_path
#define dispatch_io_get_descriptor cnv_dispatch_io_get_descriptor
#define dispatch_io_read cnv_dispatch_io_read
#define dispatch_io_set_high_water cnv_dispatch_io_set_high_water
#define dispatch_io_set_interval cnv_dispatch_io_set_interval
#define dispatch_io_set_low_water cnv_dispatch_io_set_low_water
#define dispatch_io_write cnv_dispatch_io_write
#define dispatch_read cnv_dispatch_read
#define dispatch_write cnv_dispatch_write
#define _dispatch_data_empty cnv__dispatch_data_empty
#define _dispatch_data_destructor_free cnv__dispatch_data_destructor_free
#define _dispatch_data_destructor_munmap cnv__dispatch_data_destructor_munmap
#define _dispatch_main_q cnv__dispatch_main_q
#define _dispatch_queue_attr_concurrent cnv__dispatch_queue_attr_concurrent
#define _dispatch_source_type_data_add cnv__dispatch_source_type_data_add
#define _dispatch_source_type_data_or cnv__dispatch_source_type_data_or
#define _dispatch_source_type_data_replace cnv__dispatch_source_type_data_replace
#define _dispatch_source_type_mach_send cnv__dispatch_source_type_mach_send
#define _dispatch_source_type_mach_recv cnv__dispatch_source_type_mach_recv
#define _dispatch_source_type_memorypressure cnv__dispatch_source_type_memorypressure
#define _dispatch_source_type_proc cnv__dispatch_source_type_proc
#define _dispatch_source_type_read cnv__dispatch_source_type_read
#define _dispatch_source_type_signal cnv__dispatch_source_type_signal
#define _dispatch_source_type_timer cnv__dispatch_source_type_timer
#define _dispatch_source_type_vnode cnv__dispatch_source_type_vnode
#define _dispatch_source_type_write cnv__dispatch_source_type_write

#endif /* __CONVEYOR_DISPATCH_NAMES__ */
