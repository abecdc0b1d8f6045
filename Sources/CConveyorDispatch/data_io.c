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

// The block forms of dispatch_data_* and dispatch_io_* (libdispatch has no others), on
// top of the Swift side's calls that take a context and a C function
// (Sources/ConveyorCore/CAPI/CData.swift and CIO.swift). A block that outlives the call is
// copied once and released after its last call: a destructor or barrier after it ran, a
// read/write handler after its one call, an I/O handler after the call with `done` set,
// a cleanup handler after its one call. The applier of dispatch_data_apply is used only
// during the call and not copied.
#include <dispatch/dispatch.h>
#include <stdlib.h>
#include <stdio.h>
#include "blocks_runtime.h"

// The destructor constants: blocks compared by address, never run. The third is
// libdispatch's private DISPATCH_DATA_DESTRUCTOR_NONE (the buffer is used in place and
// outlives the object), exported for programs built against libdispatch's headers: as
// a custom destructor that does nothing it behaves exactly so.
// Each is a global block made by hand under an exported name, so that the drop-in
// library's variables under libdispatch's names (Sources/CConveyorDropIn/DropIn.c) can
// hold the same address: a variable that is only an alias of these ones would have no
// size, and a program that copies it at load time would copy nothing.
struct global_block_descriptor { unsigned long reserved; unsigned long size; };
struct global_block { void *isa; int flags; int reserved; void (*invoke)(void *); const struct global_block_descriptor *descriptor; };
extern void *_NSConcreteGlobalBlock[32];
enum { BLOCK_IS_GLOBAL = 1 << 28 };
static void do_nothing(void *block) { (void)block; }
static const struct global_block_descriptor do_nothing_descriptor = { 0, sizeof(struct global_block) };
#define DESTRUCTOR_BLOCK(name) \
    struct global_block name = { _NSConcreteGlobalBlock, BLOCK_IS_GLOBAL, 0, do_nothing, &do_nothing_descriptor }
DESTRUCTOR_BLOCK(cnv_data_destructor_free_block);
DESTRUCTOR_BLOCK(cnv_data_destructor_munmap_block);
DESTRUCTOR_BLOCK(cnv_data_destructor_none_block);
const dispatch_block_t _dispatch_data_destructor_free = (dispatch_block_t)(void *)&cnv_data_destructor_free_block;
const dispatch_block_t _dispatch_data_destructor_munmap = (dispatch_block_t)(void *)&cnv_data_destructor_munmap_block;
const dispatch_block_t cnv__dispatch_data_destructor_none = (dispatch_block_t)(void *)&cnv_data_destructor_none_block;

enum { DESTROY_COPY = 0, DESTROY_FREE = 1, DESTROY_UNMAP = 2, DESTROY_BLOCK = 3 };   // CDataDestructor

void *cnv_capi_data_create(const void *buffer, size_t size, dispatch_queue_t queue, int destructor,
                           void *context, dispatch_function_t function);
bool cnv_capi_data_apply(dispatch_data_t data, void *context,
                         bool (*applier)(void *, dispatch_data_t, size_t, const void *, size_t));
void cnv_capi_read(dispatch_fd_t fd, size_t length, dispatch_queue_t queue, void *context,
                   void (*handler)(void *, dispatch_data_t, int));
void cnv_capi_write(dispatch_fd_t fd, dispatch_data_t data, dispatch_queue_t queue, void *context,
                    void (*handler)(void *, dispatch_data_t, int));
dispatch_io_t cnv_capi_io_create(dispatch_io_type_t type, dispatch_fd_t fd, dispatch_queue_t queue, void *context,
                                 void (*cleanup)(void *, int));
dispatch_io_t cnv_capi_io_create_with_path(dispatch_io_type_t type, const char *path, int oflag, mode_t mode,
                                           dispatch_queue_t queue, void *context, void (*cleanup)(void *, int));
dispatch_io_t cnv_capi_io_create_with_io(dispatch_io_type_t type, dispatch_io_t io, dispatch_queue_t queue,
                                         void *context, void (*cleanup)(void *, int));
void cnv_capi_io_read(dispatch_io_t channel, off_t offset, size_t length, dispatch_queue_t queue, void *context,
                      void (*handler)(void *, bool, dispatch_data_t, int));
void cnv_capi_io_write(dispatch_io_t channel, off_t offset, dispatch_data_t data, dispatch_queue_t queue,
                       void *context, void (*handler)(void *, bool, dispatch_data_t, int));
void cnv_capi_io_barrier(dispatch_io_t channel, void *context, dispatch_function_t function);

static void run_and_release(void *block) {
    ((dispatch_block_t)block)();
    Block_release(block);
}

// MARK: data

dispatch_data_t dispatch_data_create(const void *buffer, size_t size, dispatch_queue_t queue,
                                     dispatch_block_t destructor) {
    if (destructor == DISPATCH_DATA_DESTRUCTOR_DEFAULT)
        return cnv_capi_data_create(buffer, size, queue, DESTROY_COPY, NULL, NULL);
    if (destructor == DISPATCH_DATA_DESTRUCTOR_FREE)
        return cnv_capi_data_create(buffer, size, queue, DESTROY_FREE, NULL, NULL);
    if (destructor == DISPATCH_DATA_DESTRUCTOR_MUNMAP)
        return cnv_capi_data_create(buffer, size, queue, DESTROY_UNMAP, NULL, NULL);
    return cnv_capi_data_create(buffer, size, queue, DESTROY_BLOCK, Block_copy(destructor), run_and_release);
}

static bool apply_region(void *block, dispatch_data_t region, size_t offset, const void *buffer, size_t size) {
    return ((dispatch_data_applier_t)block)(region, offset, buffer, size);
}

bool dispatch_data_apply(dispatch_data_t data, CNV_NOESCAPE dispatch_data_applier_t applier) {
    return cnv_capi_data_apply(data, (void *)applier, apply_region);
}

// MARK: one-shot reads and writes

static void data_handler(void *block, dispatch_data_t data, int error) {
    ((void (^)(dispatch_data_t, int))block)(data, error);
    Block_release(block);
}

void dispatch_read(dispatch_fd_t fd, size_t length, dispatch_queue_t queue,
                   void (^handler)(dispatch_data_t data, int error)) {
    cnv_capi_read(fd, length, queue, Block_copy(handler), data_handler);
}

void dispatch_write(dispatch_fd_t fd, dispatch_data_t data, dispatch_queue_t queue,
                    void (^handler)(dispatch_data_t data, int error)) {
    cnv_capi_write(fd, data, queue, Block_copy(handler), data_handler);
}

// MARK: channels

static void cleanup_handler(void *block, int error) {
    ((void (^)(int))block)(error);
    Block_release(block);
}

static void ignore_cleanup(void *block, int error) {
    (void)block;
    (void)error;
}

// The cleanup block's copy and its caller (nothing to call for a NULL block).
#define CLEANUP(block) (block) ? Block_copy(block) : NULL, (block) ? cleanup_handler : ignore_cleanup

dispatch_io_t dispatch_io_create(dispatch_io_type_t type, dispatch_fd_t fd, dispatch_queue_t queue,
                                 void (^cleanup)(int error)) {
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    return cnv_capi_io_create(type, fd, queue, CLEANUP(cleanup));
}

dispatch_io_t dispatch_io_create_with_path(dispatch_io_type_t type, const char *path, int oflag, mode_t mode,
                                           dispatch_queue_t queue, void (^cleanup)(int error)) {
    // NULL, with no handler ever called, for an unknown type or a relative path.
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    if (!path || path[0] != '/') return NULL;
    return cnv_capi_io_create_with_path(type, path, oflag, mode, queue, CLEANUP(cleanup));
}

dispatch_io_t dispatch_io_create_with_io(dispatch_io_type_t type, dispatch_io_t io, dispatch_queue_t queue,
                                         void (^cleanup)(int error)) {
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    return cnv_capi_io_create_with_io(type, io, queue, CLEANUP(cleanup));
}

static void io_handler(void *block, bool done, dispatch_data_t data, int error) {
    ((dispatch_io_handler_t)block)(done, data, error);
    if (done) Block_release(block);
}

void dispatch_io_read(dispatch_io_t channel, off_t offset, size_t length, dispatch_queue_t queue,
                      dispatch_io_handler_t handler) {
    cnv_capi_io_read(channel, offset, length, queue, Block_copy(handler), io_handler);
}

void dispatch_io_write(dispatch_io_t channel, off_t offset, dispatch_data_t data, dispatch_queue_t queue,
                       dispatch_io_handler_t handler) {
    cnv_capi_io_write(channel, offset, data, queue, Block_copy(handler), io_handler);
}

void dispatch_io_barrier(dispatch_io_t channel, dispatch_block_t barrier) {
    cnv_capi_io_barrier(channel, Block_copy(barrier), run_and_release);
}

// MARK: libdispatch's function forms (its private headers; exported for programs and
// libraries built against them, which run on the drop-in library)

struct function_destructor { dispatch_function_t function; const void *buffer; };

static void run_function_destructor(void *record) {
    struct function_destructor *destructor = record;
    destructor->function((void *)destructor->buffer);
    free(destructor);
}

// The destructor is called with the buffer; the constants above are accepted too.
dispatch_data_t cnv_dispatch_data_create_f(const void *buffer, size_t size, dispatch_queue_t queue,
                                           dispatch_function_t destructor) {
    dispatch_block_t constant = (dispatch_block_t)(void *)destructor;
    if (destructor == NULL || constant == DISPATCH_DATA_DESTRUCTOR_FREE || constant == DISPATCH_DATA_DESTRUCTOR_MUNMAP ||
        constant == cnv__dispatch_data_destructor_none)
        return dispatch_data_create(buffer, size, queue, constant);
    struct function_destructor *record = malloc(sizeof *record);
    if (!record) { fputs("Conveyor: out of memory in dispatch_data_create_f\n", stderr); abort(); }
    record->function = destructor;
    record->buffer = buffer;
    return cnv_capi_data_create(buffer, size, queue, DESTROY_BLOCK, record, run_function_destructor);
}

// A buffer of `size` bytes owned by the new object, returned through `buffer`.
dispatch_data_t cnv_dispatch_data_create_alloc(size_t size, void **buffer) {
    void *bytes = size ? malloc(size) : NULL;
    if (size && !bytes) { fputs("Conveyor: out of memory in dispatch_data_create_alloc\n", stderr); abort(); }
    if (buffer) *buffer = bytes;
    return cnv_capi_data_create(bytes, size, NULL, DESTROY_FREE, NULL, NULL);
}

bool cnv_dispatch_data_apply_f(dispatch_data_t data, void *context,
                               bool (*applier)(void *, dispatch_data_t, size_t, const void *, size_t)) {
    return cnv_capi_data_apply(data, context, applier);
}

void cnv_dispatch_read_f(dispatch_fd_t fd, size_t length, dispatch_queue_t queue, void *context,
                         void (*handler)(void *, dispatch_data_t, int)) {
    cnv_capi_read(fd, length, queue, context, handler);
}

void cnv_dispatch_write_f(dispatch_fd_t fd, dispatch_data_t data, dispatch_queue_t queue, void *context,
                          void (*handler)(void *, dispatch_data_t, int)) {
    cnv_capi_write(fd, data, queue, context, handler);
}

#define CLEANUP_F(context, function) (context), (function) ? (function) : ignore_cleanup

dispatch_io_t cnv_dispatch_io_create_f(dispatch_io_type_t type, dispatch_fd_t fd, dispatch_queue_t queue,
                                       void *context, void (*cleanup)(void *, int)) {
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    return cnv_capi_io_create(type, fd, queue, CLEANUP_F(context, cleanup));
}

dispatch_io_t cnv_dispatch_io_create_with_path_f(dispatch_io_type_t type, const char *path, int oflag, mode_t mode,
                                                 dispatch_queue_t queue, void *context, void (*cleanup)(void *, int)) {
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    if (!path || path[0] != '/') return NULL;
    return cnv_capi_io_create_with_path(type, path, oflag, mode, queue, CLEANUP_F(context, cleanup));
}

dispatch_io_t cnv_dispatch_io_create_with_io_f(dispatch_io_type_t type, dispatch_io_t io, dispatch_queue_t queue,
                                               void *context, void (*cleanup)(void *, int)) {
    if (type != DISPATCH_IO_STREAM && type != DISPATCH_IO_RANDOM) return NULL;
    return cnv_capi_io_create_with_io(type, io, queue, CLEANUP_F(context, cleanup));
}

void cnv_dispatch_io_read_f(dispatch_io_t channel, off_t offset, size_t length, dispatch_queue_t queue,
                            void *context, void (*handler)(void *, bool, dispatch_data_t, int)) {
    cnv_capi_io_read(channel, offset, length, queue, context, handler);
}

void cnv_dispatch_io_write_f(dispatch_io_t channel, off_t offset, dispatch_data_t data, dispatch_queue_t queue,
                             void *context, void (*handler)(void *, bool, dispatch_data_t, int)) {
    cnv_capi_io_write(channel, offset, data, queue, context, handler);
}

void cnv_dispatch_io_barrier_f(dispatch_io_t channel, void *context, dispatch_function_t barrier) {
    cnv_capi_io_barrier(channel, context, barrier);
}
