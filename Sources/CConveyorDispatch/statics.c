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
// metadata pointer; tags and source type numbers come from cnv_static_objects.h.
#include <dispatch/dispatch.h>
#include <cnv_static_objects.h>
#include <stdarg.h>
#include <stdio.h>

struct dispatch_queue_s { uintptr_t tag; };
struct dispatch_queue_attr_s { uintptr_t tag; uintptr_t concurrent; };
struct dispatch_source_type_s { uintptr_t tag; uintptr_t type; };
struct dispatch_data_s { uintptr_t tag; };

struct dispatch_queue_s _dispatch_main_q = { CNV_STATIC_TAG_MAIN_QUEUE };
struct dispatch_queue_attr_s _dispatch_queue_attr_concurrent = { CNV_STATIC_TAG_QUEUE_ATTRIBUTES, 1 };
struct dispatch_data_s _dispatch_data_empty = { CNV_STATIC_TAG_DATA_EMPTY };

#define SOURCE_TYPE(name, number) \
    const struct dispatch_source_type_s _dispatch_source_type_##name = { CNV_STATIC_TAG_SOURCE_TYPE, number }
SOURCE_TYPE(data_add, CNV_SOURCE_TYPE_DATA_ADD);
SOURCE_TYPE(data_or, CNV_SOURCE_TYPE_DATA_OR);
SOURCE_TYPE(data_replace, CNV_SOURCE_TYPE_DATA_REPLACE);
SOURCE_TYPE(mach_send, CNV_SOURCE_TYPE_MACH_SEND);
SOURCE_TYPE(mach_recv, CNV_SOURCE_TYPE_MACH_RECV);
SOURCE_TYPE(memorypressure, CNV_SOURCE_TYPE_MEMORYPRESSURE);
SOURCE_TYPE(proc, CNV_SOURCE_TYPE_PROC);
SOURCE_TYPE(read, CNV_SOURCE_TYPE_READ);
SOURCE_TYPE(signal, CNV_SOURCE_TYPE_SIGNAL);
SOURCE_TYPE(timer, CNV_SOURCE_TYPE_TIMER);
SOURCE_TYPE(vnode, CNV_SOURCE_TYPE_VNODE);
SOURCE_TYPE(write, CNV_SOURCE_TYPE_WRITE);

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
