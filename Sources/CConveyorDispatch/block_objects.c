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

// dispatch_block_create and the calls on the blocks it makes (include/conveyor/dispatch_sync.h).
//
// The block returned is made by hand in the BlocksRuntime's layout, as libdispatch makes
// its own: a stack-block literal whose one captured variable is the work item (a Swift
// `DispatchWorkItem`, see Sources/ConveyorCore/CAPI/CBlockObject.swift), with copy and
// dispose helpers that retain and release the item. Block_copy moves it to the heap (the
// runtime calls the copy helper); every later Block_copy/Block_release counts references
// on that heap block, and the last release calls the dispose helper. Invoking it performs
// the item; the other calls recognise such a block by its invoke function.
#include <dispatch/dispatch.h>
#include <stdint.h>
#include "blocks_runtime.h"

enum { BLOCK_HAS_COPY_DISPOSE = 1 << 25 };

struct item_block;
struct item_block_descriptor {
    unsigned long reserved;
    unsigned long size;
    void (*copy)(struct item_block *destination, const struct item_block *source);
    void (*dispose)(const struct item_block *block);
};
struct item_block {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(struct item_block *block);
    const struct item_block_descriptor *descriptor;
    void *item;
};

void *cnv_capi_block_item_create(unsigned long flags, unsigned int qos_class, int relative_priority,
                                 dispatch_function_t invoke, void *block, dispatch_function_t release);
void cnv_capi_block_item_retain(void *item);
void cnv_capi_block_item_release(void *item);
void cnv_capi_block_item_perform(void *item);
intptr_t cnv_capi_block_item_wait(void *item, dispatch_time_t timeout);
void cnv_capi_block_item_notify(void *item, dispatch_queue_t queue, void *context, dispatch_function_t function);
void cnv_capi_block_item_notify_item(void *item, dispatch_queue_t queue, void *notification);
void cnv_capi_block_item_cancel(void *item);
intptr_t cnv_capi_block_item_testcancel(void *item);
__attribute__((noreturn)) void cnv_capi_block_misuse(const char *function);

static void item_invoke(struct item_block *block) { cnv_capi_block_item_perform(block->item); }
static void item_copy(struct item_block *destination, const struct item_block *source) {
    (void)destination;
    cnv_capi_block_item_retain(source->item);
}
static void item_dispose(const struct item_block *block) { cnv_capi_block_item_release(block->item); }

static const struct item_block_descriptor item_descriptor = {
    0, sizeof(struct item_block), item_copy, item_dispose,
};

void *cnv_block_item(const void *block) {
    const struct item_block *literal = (const struct item_block *)block;
    return literal && literal->invoke == item_invoke ? literal->item : NULL;
}

static void invoke_block(void *block) { ((dispatch_block_t)block)(); }
static void release_block(void *block) { Block_release(block); }
static void invoke_and_release(void *block) {
    ((dispatch_block_t)block)();
    Block_release(block);
}

static dispatch_block_t make(dispatch_block_flags_t flags, unsigned int qos_class, int relative_priority,
                             dispatch_block_t block) {
    void *item = cnv_capi_block_item_create(flags, qos_class, relative_priority, invoke_block,
                                            Block_copy(block), release_block);
    if (!item) return NULL;
    struct item_block literal = {
        _NSConcreteStackBlock, BLOCK_HAS_COPY_DISPOSE, 0, item_invoke, &item_descriptor, item,
    };
    dispatch_block_t heap = Block_copy((dispatch_block_t)(void *)&literal);
    cnv_capi_block_item_release(item);   // the heap block holds its own reference now
    return heap;
}

dispatch_block_t dispatch_block_create(dispatch_block_flags_t flags, dispatch_block_t block) {
    return make(flags, 0, 0, block);
}

dispatch_block_t dispatch_block_create_with_qos_class(dispatch_block_flags_t flags, dispatch_qos_class_t qos_class,
                                                      int relative_priority, dispatch_block_t block) {
    return make(flags, (unsigned int)qos_class, relative_priority, block);
}

void dispatch_block_perform(dispatch_block_flags_t flags, CNV_NOESCAPE dispatch_block_t block) {
    dispatch_block_t made = make(flags, 0, 0, block);
    made();
    Block_release(made);
}

intptr_t dispatch_block_wait(dispatch_block_t block, dispatch_time_t timeout) {
    void *item = cnv_block_item(block);
    if (!item) cnv_capi_block_misuse("dispatch_block_wait");
    return cnv_capi_block_item_wait(item, timeout);
}

void dispatch_block_notify(dispatch_block_t block, dispatch_queue_t queue, dispatch_block_t notification_block) {
    void *item = cnv_block_item(block);
    if (!item) cnv_capi_block_misuse("dispatch_block_notify");
    void *notification = cnv_block_item(notification_block);
    if (notification) { cnv_capi_block_item_notify_item(item, queue, notification); return; }
    cnv_capi_block_item_notify(item, queue, Block_copy(notification_block), invoke_and_release);
}

void dispatch_block_cancel(dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (!item) cnv_capi_block_misuse("dispatch_block_cancel");
    cnv_capi_block_item_cancel(item);
}

intptr_t dispatch_block_testcancel(dispatch_block_t block) {
    void *item = cnv_block_item(block);
    if (!item) cnv_capi_block_misuse("dispatch_block_testcancel");
    return cnv_capi_block_item_testcancel(item);
}
