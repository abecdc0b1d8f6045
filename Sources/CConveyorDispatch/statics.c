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

// The API's data symbols: the main queue, DISPATCH_QUEUE_CONCURRENT, the source types and
// the empty data object.
// Each starts with a tag word that the Swift side (Sources/ConveyorCore/CAPI/CObject.swift,
// `CStaticTag`) reads to tell them from its own objects, whose first word is a Swift
// metadata pointer; the numbers must match `CStaticTag` and `CSourceType`.
#include <dispatch/dispatch.h>
#include <stdarg.h>
#include <stdio.h>

struct dispatch_queue_s { uintptr_t tag; };
struct dispatch_queue_attr_s { uintptr_t tag; uintptr_t concurrent; };
struct dispatch_source_type_s { uintptr_t tag; uintptr_t type; };
struct dispatch_data_s { uintptr_t tag; };

enum { TAG_MAIN_QUEUE = 1, TAG_QUEUE_ATTRIBUTES = 2, TAG_SOURCE_TYPE = 3, TAG_DATA_EMPTY = 4 };

struct dispatch_queue_s _dispatch_main_q = { TAG_MAIN_QUEUE };
struct dispatch_queue_attr_s _dispatch_queue_attr_concurrent = { TAG_QUEUE_ATTRIBUTES, 1 };
struct dispatch_data_s _dispatch_data_empty = { TAG_DATA_EMPTY };

#define SOURCE_TYPE(name, number) \
    const struct dispatch_source_type_s _dispatch_source_type_##name = { TAG_SOURCE_TYPE, number }
SOURCE_TYPE(data_add, 1);
SOURCE_TYPE(data_or, 2);
SOURCE_TYPE(data_replace, 3);
SOURCE_TYPE(mach_send, 4);
SOURCE_TYPE(mach_recv, 5);
SOURCE_TYPE(memorypressure, 6);
SOURCE_TYPE(proc, 7);
SOURCE_TYPE(read, 8);
SOURCE_TYPE(signal, 9);
SOURCE_TYPE(timer, 10);
SOURCE_TYPE(vnode, 11);
SOURCE_TYPE(write, 12);

void cnv_capi_register_main_queue(void *handle);
void cnv_capi_register_data_empty(void *handle);

// Tells the Swift side the main queue's address when the library loads, for
// dispatch_get_current_queue(), and the empty data's, which data calls return.
__attribute__((constructor)) static void register_statics(void) {
    cnv_capi_register_main_queue(&_dispatch_main_q);
    cnv_capi_register_data_empty(&_dispatch_data_empty);
}

void dispatch_debug(dispatch_object_t object, const char *message, ...) {
    va_list arguments;
    va_start(arguments, message);
    dispatch_debugv(object, message, arguments);
    va_end(arguments);
}

void dispatch_debugv(dispatch_object_t object, const char *message, va_list arguments) {
    fprintf(stderr, "dispatch object %p: ", (void *)object._do);
    vfprintf(stderr, message, arguments);
    fputc('\n', stderr);
}
