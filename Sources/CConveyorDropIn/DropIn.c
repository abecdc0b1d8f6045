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

// The drop-in library's own code: its marker, the check that it was loaded in time, the
// libdispatch entry points Conveyor does not provide, its data symbols, and the hand-over
// to a program's runtime. Everything else it exports is the C API's implementation under
// a second name (exports.ld), reached through the forwarding table (Forwarding.S).
#define _GNU_SOURCE
#include "CConveyorDropIn.h"
#include <CConveyorMainThreadBridge.h>
#include <cnv_capi_state.h>
#include <cnv_runtime_entries.def>
#include <cnv_static_objects.h>

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char conveyor_drop_in[] = "Conveyor drop-in libdispatch (API 20180109)";

// MARK: loaded in time

struct load_order { const char *self; int seen_self; int libdispatch_first; };

static int find_order(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct load_order *order = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (order->self && strcmp(name, order->self) == 0) {
        order->seen_self = 1;
        return 1;   // stop: everything after us is found after us
    }
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libdispatch.so", 14) == 0) order->libdispatch_first = 1;
    return 0;
}

// Symbols bind to the first library in the process's search order that defines them.
// Preloaded, this library comes right after the program, before libdispatch, and every
// dispatch call binds here. Loaded later (by dlopen) after libdispatch, the calls already
// bind to libdispatch, and Conveyor objects made through this library's own names could
// reach it: refuse, with a message saying how to load it.
__attribute__((constructor)) static void check_load_order(void) {
    Dl_info self;
    if (!dladdr((void *)check_load_order, &self) || !self.dli_fname) return;
    struct load_order order = { self.dli_fname, 0, 0 };
    dl_iterate_phdr(find_order, &order);
    if (order.seen_self && order.libdispatch_first) {
        fprintf(stderr,
                "Conveyor: %s was loaded after libdispatch (by dlopen?), so the process's dispatch calls stay on "
                "libdispatch; load it first: LD_PRELOAD=%s program, or conveyor-run program\n",
                self.dli_fname, self.dli_fname);
        abort();
    }
}

// MARK: entry points not provided

__attribute__((noreturn, cold)) static void unprovided(const char *name, const char *why) {
    fprintf(stderr,
            "Conveyor: %s is not provided by Conveyor's drop-in libdispatch (%s); "
            "see README, \"Running any program on Conveyor\"\n",
            name, why);
    abort();
}

// Each stub takes whatever arguments its caller passes (they are never read) and never
// returns. Scripts/drop-in-exports.py checks that every function libdispatch exports is
// either aliased in exports.ld or listed here.
#define UNPROVIDED(name, why) \
    __attribute__((visibility("default"), noreturn)) void name(void); \
    void name(void) { unprovided(#name, why); }

#define DARWIN "Darwin only: Mach, launchd and Network.framework have no Linux counterpart"
#define WORKLOOP "workloops are Apple's SPI, absent from Swift's Dispatch on Linux"
#define OS_OBJECT "libdispatch's object runtime; Conveyor's objects are its own"

UNPROVIDED(_dispatch_block_create, "libdispatch's internal block constructor; use dispatch_block_create")
UNPROVIDED(_dispatch_iocntl, "libdispatch's I/O tuning hook")
UNPROVIDED(_dispatch_poll_for_events_4launchd, DARWIN)
UNPROVIDED(_dispatch_runloop_root_queue_create_4CF, "run-loop queues for threads other than the main one; CoreFoundation on Linux does not use them")
UNPROVIDED(_dispatch_runloop_root_queue_perform_4CF, "run-loop queues for threads other than the main one; CoreFoundation on Linux does not use them")
UNPROVIDED(_dispatch_runloop_root_queue_wakeup_4CF, "run-loop queues for threads other than the main one; CoreFoundation on Linux does not use them")
UNPROVIDED(_dispatch_wait_for_enqueuer, "libdispatch's internal hand-off wait")
UNPROVIDED(_dispatch_workloop_should_yield_4NW, DARWIN)
UNPROVIDED(_dispatch_prohibit_transition_to_multithreaded, "a libSystem start-up hook")
UNPROVIDED(_os_object_alloc, OS_OBJECT)
UNPROVIDED(_os_object_alloc_realized, OS_OBJECT)
UNPROVIDED(_os_object_dealloc, OS_OBJECT)
UNPROVIDED(_os_object_release, OS_OBJECT)
UNPROVIDED(_os_object_release_internal, OS_OBJECT)
UNPROVIDED(_os_object_release_internal_n, OS_OBJECT)
UNPROVIDED(_os_object_retain, OS_OBJECT)
UNPROVIDED(_os_object_retain_internal, OS_OBJECT)
UNPROVIDED(_os_object_retain_internal_n, OS_OBJECT)
UNPROVIDED(_os_object_retain_with_resurrect, OS_OBJECT)
UNPROVIDED(dispatch_atfork_child, "libSystem's fork hooks; on Linux each library registers its own with pthread_atfork")
UNPROVIDED(dispatch_atfork_parent, "libSystem's fork hooks; on Linux each library registers its own with pthread_atfork")
UNPROVIDED(dispatch_atfork_prepare, "libSystem's fork hooks; on Linux each library registers its own with pthread_atfork")
UNPROVIDED(dispatch_async_enforce_qos_class_f, "QoS overrides of one submission are not part of Conveyor's C API")
UNPROVIDED(dispatch_data_create_with_transform, "base32/base64/UTF-16 transforms of data objects")
UNPROVIDED(dispatch_queue_create_with_accounting_override_voucher, DARWIN)
UNPROVIDED(dispatch_queue_set_label_nocopy, "a queue's label is fixed when it is made")
UNPROVIDED(dispatch_set_qos_class, "QoS of an object after it is made")
UNPROVIDED(dispatch_set_qos_class_fallback, "QoS of an object after it is made")
UNPROVIDED(dispatch_set_qos_class_floor, "QoS of an object after it is made")
UNPROVIDED(dispatch_source_cancel_and_wait, "libdispatch's private source SPI")
UNPROVIDED(dispatch_source_get_extended_data, "libdispatch's private source SPI")
UNPROVIDED(dispatch_source_set_mandatory_cancel_handler, "libdispatch's private source SPI")
UNPROVIDED(dispatch_source_set_mandatory_cancel_handler_f, "libdispatch's private source SPI")
UNPROVIDED(dispatch_workloop_copy_current, WORKLOOP)
UNPROVIDED(dispatch_workloop_create, WORKLOOP)
UNPROVIDED(dispatch_workloop_create_inactive, WORKLOOP)
UNPROVIDED(dispatch_workloop_is_current, WORKLOOP)
UNPROVIDED(dispatch_workloop_set_autorelease_frequency, WORKLOOP)
UNPROVIDED(dispatch_workloop_set_cpupercent, WORKLOOP)
UNPROVIDED(dispatch_workloop_set_qos_class, WORKLOOP)
UNPROVIDED(dispatch_workloop_set_qos_class_floor, WORKLOOP)

// MARK: data symbols

// libdispatch's data symbols, defined here at libdispatch's sizes rather than as aliases of
// the C API's (an alias has no size). An executable built without position-independent
// access (GCC's default on x86-64, `-no-pie`) copies such an object into itself at load
// time, `min(its size, ours)` bytes, and from then on every reference in the process,
// this library's included, is to that copy: it must be complete. The C API knows its
// static objects by their first words (Sources/CConveyorDispatch/statics.c): a tag, and
// for a source type its number, both from cnv_static_objects.h.
// The rest of each object is padding to libdispatch's size. `register_statics` registers
// the main queue and the empty data as the program sees them (`dispatch_get_current_queue()`
// and the data calls answer those addresses).
#define DATA_OBJECT(name, size, ...) \
    __attribute__((visibility("default"))) struct { uintptr_t words[(size) / sizeof(uintptr_t)]; } name = { { __VA_ARGS__ } }

DATA_OBJECT(_dispatch_main_q, 128, CNV_STATIC_TAG_MAIN_QUEUE);
DATA_OBJECT(_dispatch_queue_attr_concurrent, 64512, CNV_STATIC_TAG_QUEUE_ATTRIBUTES, 1);
DATA_OBJECT(_dispatch_data_empty, 80, CNV_STATIC_TAG_DATA_EMPTY);
DATA_OBJECT(_dispatch_source_type_data_add, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_DATA_ADD);
DATA_OBJECT(_dispatch_source_type_data_or, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_DATA_OR);
DATA_OBJECT(_dispatch_source_type_data_replace, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_DATA_REPLACE);
DATA_OBJECT(_dispatch_source_type_read, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_READ);
DATA_OBJECT(_dispatch_source_type_signal, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_SIGNAL);
DATA_OBJECT(_dispatch_source_type_timer, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_TIMER);
DATA_OBJECT(_dispatch_source_type_write, 48, CNV_STATIC_TAG_SOURCE_TYPE, CNV_SOURCE_TYPE_WRITE);
// libdispatch's private interval timer type. Not provided: dispatch_source_create answers
// NULL for it (type 0), as libdispatch does for a type it does not know.
DATA_OBJECT(_dispatch_source_type_interval, 48, CNV_STATIC_TAG_SOURCE_TYPE, 0);

// The data destructors: variables holding the address of the C API's own constant blocks
// (Sources/CConveyorDispatch/data_io.c), which its calls compare against.
#define DESTRUCTOR(name, block) \
    extern char block[]; \
    __attribute__((visibility("default"))) const void *const name = block

DESTRUCTOR(_dispatch_data_destructor_free, cnv_data_destructor_free_block);
DESTRUCTOR(_dispatch_data_destructor_munmap, cnv_data_destructor_munmap_block);
DESTRUCTOR(_dispatch_data_destructor_none, cnv_data_destructor_none_block);

void cnv_capi_register_drop_in_main_queue(void *handle);
void cnv_capi_register_drop_in_data_empty(void *handle);

// Taken through the global offset table (the names are interposable): the program's
// copies when it made copies. The calls go through the forwarding table: to the runtime
// that serves the process at the time (run again when a program's runtime is adopted).
__attribute__((constructor)) static void register_statics(void) {
    cnv_capi_register_drop_in_main_queue(&_dispatch_main_q);
    cnv_capi_register_drop_in_data_empty(&_dispatch_data_empty);
}

// MARK: one runtime per process

// The slots the stubs jump through (Forwarding.S), in cnv_runtime_entries.def's order.
extern void *cnv_drop_in_forward_table[CNV_RUNTIME_ENTRY_COUNT] __attribute__((visibility("hidden")));

/// The table this library forwards to, once it took a program's (NULL before).
static const struct cnv_runtime_table *adopted_table;

// Called by a program that links Conveyor's Swift module, from its constructor, before
// `main` (Sources/CConveyorMainThreadBridge/DropInAdoption.c). The constructors of the
// process's libraries have run by then, this library's included; if any of them made
// runtime state here (an object, work on the main queue, a block object), that state
// would not be known to the program's runtime, and the library keeps its own.
// Concurrency: the process is still loading, on one thread, and every thread started
// later is created after the slots are written (pthread_create orders them). A thread
// that a library's constructor started and that calls dispatch while this runs is not
// covered: it may make an object after the check below, or be inside a call into this
// library's runtime when the slots change (its stub reads a slot with a plain load, one
// aligned word: the old target or the new, which the releasing stores publish whole).
__attribute__((visibility("default")))
int conveyor_drop_in_adopt(const struct cnv_runtime_table *table, const char **why) {
    if (adopted_table) {
        if (adopted_table == table) return 1;
        *why = "it already forwards to another copy of the runtime";
        return 0;
    }
    if (table->fingerprint != CNV_RUNTIME_FINGERPRINT || table->count != CNV_RUNTIME_ENTRY_COUNT) {
        *why = "the program links another build of Conveyor than the library's";
        return 0;
    }
    if (__atomic_load_n(&cnv_capi_state_made, __ATOMIC_RELAXED)) {
        *why = "code that ran before the program's runtime was handed over (a library's or the program's constructor) made dispatch objects or work on the library's own runtime";
        return 0;
    }
    for (size_t i = 0; i < CNV_RUNTIME_ENTRY_COUNT; i++) {
        if (!table->entries[i]) {
            *why = "the program's runtime lacks an entry point";
            return 0;
        }
    }
    for (size_t i = 0; i < CNV_RUNTIME_ENTRY_COUNT; i++) {
        __atomic_store_n(&cnv_drop_in_forward_table[i], table->entries[i], __ATOMIC_RELEASE);
    }
    adopted_table = table;
    register_statics();   // the program's runtime learns the handles the process sees
    return 1;
}
