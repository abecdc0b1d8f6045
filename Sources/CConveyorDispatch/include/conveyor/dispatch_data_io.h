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

/* Conveyor's C API, part 5 of 5: data objects (immutable, possibly
 * discontiguous byte buffers) and I/O channels over file descriptors.
 * Written for Conveyor; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_DATA_IO_H
#define CONVEYOR_DISPATCH_DATA_IO_H

#include <conveyor/dispatch_sources.h>

CONVEYOR_C_BEGIN

/* ---- Data ---- */

/* The empty data object: static, never freed. */
CNV_API struct dispatch_data_s _dispatch_data_empty;
#define dispatch_data_empty CNV_STATIC_HANDLE(dispatch_data_t, _dispatch_data_empty)

/* Destructors for dispatch_data_create. DEFAULT: the bytes are copied now.
 * FREE: the object takes the malloc'ed buffer and frees it. MUNMAP: the
 * object takes an mmap'ed buffer and unmaps it. Any other block is called on
 * the given queue once the object no longer needs the buffer. */
#define DISPATCH_DATA_DESTRUCTOR_DEFAULT NULL
#ifdef __BLOCKS__
CNV_API const dispatch_block_t _dispatch_data_destructor_free;
CNV_API const dispatch_block_t _dispatch_data_destructor_munmap;
#else
CNV_API const dispatch_function_t _dispatch_data_destructor_free;
CNV_API const dispatch_function_t _dispatch_data_destructor_munmap;
#endif
#define DISPATCH_DATA_DESTRUCTOR_FREE _dispatch_data_destructor_free
#define DISPATCH_DATA_DESTRUCTOR_MUNMAP _dispatch_data_destructor_munmap

#ifdef __BLOCKS__
/* A data object over `size` bytes at `buffer` (see the destructors above). */
CNV_API dispatch_data_t dispatch_data_create(const void *buffer, size_t size, dispatch_queue_t queue,
                                             dispatch_block_t destructor);
#endif

CNV_API size_t dispatch_data_get_size(dispatch_data_t data);

/* A contiguous object with the same bytes (the object itself when it already
 * is); its bytes and size are stored through the pointers that are not NULL
 * and stay valid while the returned object lives. */
CNV_API dispatch_data_t dispatch_data_create_map(dispatch_data_t data, const void **buffer_ptr,
                                                 size_t *size_ptr);
/* New objects sharing the bytes of their arguments (nothing is copied). */
CNV_API dispatch_data_t dispatch_data_create_concat(dispatch_data_t data1, dispatch_data_t data2);
CNV_API dispatch_data_t dispatch_data_create_subrange(dispatch_data_t data, size_t offset, size_t length);
/* The contiguous region holding byte `location`; its start goes to *offset_ptr. */
CNV_API dispatch_data_t dispatch_data_copy_region(dispatch_data_t data, size_t location, size_t *offset_ptr);

#ifdef __BLOCKS__
/* Called once per contiguous region, in order; returning false stops. */
typedef bool (^dispatch_data_applier_t)(dispatch_data_t region, size_t offset, const void *buffer, size_t size);
/* True when every region was visited. */
CNV_API bool dispatch_data_apply(dispatch_data_t data, CNV_NOESCAPE dispatch_data_applier_t applier);
#endif

/* ---- I/O ---- */

typedef int dispatch_fd_t;

/* Channel types: a stream (pipes, sockets; reads and writes in order at the
 * current position) or random access (files; at an offset). */
typedef unsigned long dispatch_io_type_t;
#define DISPATCH_IO_STREAM 0
#define DISPATCH_IO_RANDOM 1

/* dispatch_io_close: stop the operations in progress too. */
typedef unsigned long dispatch_io_close_flags_t;
#define DISPATCH_IO_STOP 0x1

/* dispatch_io_set_interval: report on time even if below the low water mark. */
typedef unsigned long dispatch_io_interval_flags_t;
#define DISPATCH_IO_STRICT_INTERVAL 0x1

#ifdef __BLOCKS__
/* One-shot reads and writes on a descriptor: the handler gets all the data (or
 * what was not written) and an errno value, once. */
CNV_API void dispatch_read(dispatch_fd_t fd, size_t length, dispatch_queue_t queue,
                           void (^handler)(dispatch_data_t data, int error));
CNV_API void dispatch_write(dispatch_fd_t fd, dispatch_data_t data, dispatch_queue_t queue,
                            void (^handler)(dispatch_data_t data, int error));

/* Channels. The cleanup handler runs on `queue` when the channel lets go of
 * its descriptor, with an errno value (0 if all went well). */
CNV_API dispatch_io_t dispatch_io_create(dispatch_io_type_t type, dispatch_fd_t fd, dispatch_queue_t queue,
                                         void (^cleanup_handler)(int error));
CNV_API dispatch_io_t dispatch_io_create_with_path(dispatch_io_type_t type, const char *path, int oflag,
                                                   mode_t mode, dispatch_queue_t queue,
                                                   void (^cleanup_handler)(int error));
CNV_API dispatch_io_t dispatch_io_create_with_io(dispatch_io_type_t type, dispatch_io_t io,
                                                 dispatch_queue_t queue, void (^cleanup_handler)(int error));

/* Called with the progress of a channel operation: `done` on the last call,
 * `data` read so far (or not yet written), `error` an errno value. */
typedef void (^dispatch_io_handler_t)(bool done, dispatch_data_t data, int error);
CNV_API void dispatch_io_read(dispatch_io_t channel, off_t offset, size_t length, dispatch_queue_t queue,
                              dispatch_io_handler_t io_handler);
CNV_API void dispatch_io_write(dispatch_io_t channel, off_t offset, dispatch_data_t data,
                               dispatch_queue_t queue, dispatch_io_handler_t io_handler);
/* Runs `barrier` once the operations before it are done and before any after it. */
CNV_API void dispatch_io_barrier(dispatch_io_t channel, dispatch_block_t barrier);
#endif

CNV_API void dispatch_io_close(dispatch_io_t channel, dispatch_io_close_flags_t flags);
/* The channel's descriptor (-1 once closed or not yet opened). */
CNV_API dispatch_fd_t dispatch_io_get_descriptor(dispatch_io_t channel);
/* How much data a handler call carries at most and at least. */
CNV_API void dispatch_io_set_high_water(dispatch_io_t channel, size_t high_water);
CNV_API void dispatch_io_set_low_water(dispatch_io_t channel, size_t low_water);
CNV_API void dispatch_io_set_interval(dispatch_io_t channel, uint64_t interval,
                                      dispatch_io_interval_flags_t flags);

CONVEYOR_C_END

#endif /* CONVEYOR_DISPATCH_DATA_IO_H */
