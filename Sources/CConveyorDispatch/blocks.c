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

// The block forms of the API, on top of the `_f` forms that Conveyor's Swift side
// exports. A block that outlives the call is copied once (Block_copy) and released
// (Block_release) right after it ran, exactly as libdispatch does; a block used only
// during the call (dispatch_sync, dispatch_apply, dispatch_once) is not copied.
#include <dispatch/dispatch.h>
#include "blocks_runtime.h"

// A block made by dispatch_block_create stands for a work item: submitted with
// dispatch_async, dispatch_group_async, dispatch_sync, dispatch_group_notify, dispatch_after
// or (as the notification) dispatch_block_notify, the item goes to the queue itself, so its
// flags (a barrier, a QoS class) apply, as libdispatch's continuations honour them.
// Elsewhere it is an ordinary block whose invocation performs the item.
void cnv_capi_block_item_async(dispatch_queue_t queue, void *item, dispatch_group_t group);
void cnv_capi_block_item_sync(dispatch_queue_t queue, void *item);
void cnv_capi_block_item_group_notify(dispatch_group_t group, dispatch_queue_t queue, void *item);
void cnv_capi_block_item_after(dispatch_time_t when, dispatch_queue_t queue, void *item);

// Runs a copied block, then releases the copy.
static void invoke_and_release(void *block) {
    ((dispatch_block_t)block)();
    Block_release(block);
}

// Runs a block (no copy was made).
static void invoke(void *block) {
    ((dispatch_block_t)block)();
}

static void release_block(void *block) {
    Block_release(block);
}

static void invoke_apply(void *block, size_t index) {
    ((void (^)(size_t))block)(index);
}

void dispatch_async(dispatch_queue_t queue, dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (item) { cnv_capi_block_item_async(queue, item, NULL); return; }
    dispatch_async_f(queue, Block_copy(block), invoke_and_release);
}

void dispatch_barrier_async(dispatch_queue_t queue, dispatch_block_t block) {
    dispatch_barrier_async_f(queue, Block_copy(block), invoke_and_release);
}

void dispatch_sync(dispatch_queue_t queue, CNV_NOESCAPE dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (item) { cnv_capi_block_item_sync(queue, item); return; }
    dispatch_sync_f(queue, (void *)block, invoke);
}

void dispatch_barrier_sync(dispatch_queue_t queue, CNV_NOESCAPE dispatch_block_t block) {
    dispatch_barrier_sync_f(queue, (void *)block, invoke);
}

void dispatch_group_async(dispatch_group_t group, dispatch_queue_t queue, dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (item) { cnv_capi_block_item_async(queue, item, group); return; }
    dispatch_group_async_f(group, queue, Block_copy(block), invoke_and_release);
}

void dispatch_group_notify(dispatch_group_t group, dispatch_queue_t queue, dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (item) { cnv_capi_block_item_group_notify(group, queue, item); return; }
    dispatch_group_notify_f(group, queue, Block_copy(block), invoke_and_release);
}

void dispatch_after(dispatch_time_t when, dispatch_queue_t queue, dispatch_block_t block) {
    // A time of DISPATCH_TIME_FOREVER never runs the block: nothing to copy.
    if (when == DISPATCH_TIME_FOREVER) return;
    void *item = cnv_block_item(block);
    if (item) { cnv_capi_block_item_after(when, queue, item); return; }
    dispatch_after_f(when, queue, Block_copy(block), invoke_and_release);
}

void dispatch_apply(size_t iterations, dispatch_queue_t queue, CNV_NOESCAPE void (^block)(size_t)) {
    dispatch_apply_f(iterations, queue, (void *)block, invoke_apply);
}

// include/conveyor/dispatch_sync.h maps dispatch_once onto an inline fast path on x86; this is
// the exported call (the slow path there, the only path elsewhere).
void cnv_dispatch_once(dispatch_once_t *predicate, CNV_NOESCAPE dispatch_block_t block) {
    cnv_dispatch_once_f(predicate, (void *)block, invoke);
}

// Source handlers: the source keeps one copy per handler and releases it when the
// handler is replaced or the source is freed (see CBlockHandler in CAPI/CSource.swift).
void cnv_capi_source_set_block_handler(dispatch_source_t source, int which, dispatch_function_t invoke,
                                       void *block, dispatch_function_t release);

static void set_handler(dispatch_source_t source, int which, dispatch_block_t handler) {
    cnv_capi_source_set_block_handler(source, which, invoke, handler ? Block_copy(handler) : NULL, release_block);
}

void dispatch_source_set_event_handler(dispatch_source_t source, dispatch_block_t handler) {
    set_handler(source, 0, handler);
}

void dispatch_source_set_cancel_handler(dispatch_source_t source, dispatch_block_t handler) {
    set_handler(source, 1, handler);
}

void dispatch_source_set_registration_handler(dispatch_source_t source, dispatch_block_t handler) {
    set_handler(source, 2, handler);
}
