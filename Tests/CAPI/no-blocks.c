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

// Conveyor's <dispatch/dispatch.h> without blocks: compiled without -fblocks (with GCC
// when it is installed), using the _f forms only; exits 0 when the work ran.
#include <dispatch/dispatch.h>
#include <stdio.h>

// The declaration macros that code written for libdispatch's headers (its
// <dispatch/private.h>, for one) expects from <dispatch/dispatch.h>, used as it uses them.
DISPATCH_ASSUME_NONNULL_BEGIN
DISPATCH_EXPORT DISPATCH_NOTHROW DISPATCH_NONNULL_ALL DISPATCH_WARN_RESULT
int declared_like_libdispatch(void *pointer);
DISPATCH_ENUM(declared_kind, unsigned long,
    DECLARED_KIND_ONE DISPATCH_ENUM_API_AVAILABLE(macos(10.0)) = 1,
);
DISPATCH_DECL(declared_object);
DISPATCH_ASSUME_NONNULL_END
DISPATCH_NOTHROW int declared_like_libdispatch(void *pointer) { return *(int *)pointer; }

static int ran;
static void work(void *context) { ran += *(int *)context; }

int main(void) {
    int one = 1;
    dispatch_queue_t queue = dispatch_queue_create("no-blocks", DISPATCH_QUEUE_CONCURRENT);
    dispatch_group_t group = dispatch_group_create();
    dispatch_group_async_f(group, queue, &one, work);
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_barrier_sync_f(queue, &one, work);
    // Without blocks data objects cannot be made, but the empty one can be used.
    dispatch_data_t empty = dispatch_data_create_subrange(dispatch_data_empty, 0, 1);
    if (dispatch_data_get_size(empty) == 0 && empty == dispatch_data_empty) ran++;
    dispatch_release(empty);
    declared_kind_t kind = DECLARED_KIND_ONE;
    declared_object_t object = NULL;
    if (declared_like_libdispatch(&one) && kind == 1 && object == NULL) ran++;
    printf("no blocks: %s\n", ran == 4 ? "ok" : "FAILED");
    dispatch_release(group);
    dispatch_release(queue);
    return ran == 4 ? 0 : 1;
}
