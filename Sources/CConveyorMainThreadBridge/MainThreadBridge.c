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

#define _GNU_SOURCE
#include "CConveyorMainThreadBridge.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#define SWIFTCC __attribute__((swiftcall))

// MARK: the toolchain's libdispatch main queue, found by name

typedef void (*async_f_t)(void *queue, void *context, void (*function)(void *));
typedef int (*handle_4cf_t)(void);
typedef void (*callback_4cf_t)(void *);

static void *main_queue;            // &_dispatch_main_q
static async_f_t async_f;           // dispatch_async_f
static handle_4cf_t main_handle;    // _dispatch_get_main_queue_handle_4CF (an eventfd on Linux)
static callback_4cf_t main_callback; // _dispatch_main_queue_callback_4CF

int cnv_libdispatch_main_queue_available(void) {
    return main_queue && async_f && main_handle && main_callback;
}

int cnv_libdispatch_main_queue_async(void *context, void (*function)(void *)) {
    if (!cnv_libdispatch_main_queue_available()) return -1;
    async_f(main_queue, context, function);
    return 0;
}

int cnv_libdispatch_main_queue_descriptor(void) {
    if (!cnv_libdispatch_main_queue_available()) return -1;
    return main_handle();
}

void cnv_libdispatch_main_queue_drain(void) {
    if (cnv_libdispatch_main_queue_available()) main_callback(NULL);
}

// MARK: the concurrency runtime's hooks (libswift_Concurrency's exported variables)

// Signatures from the runtime's ConcurrencyHooks.def / Concurrency.h (Swift 6.x):
//   void (*swift_task_enqueueMainExecutor_hook)(Job *, void (*original)(Job *));
//   void (*swift_task_asyncMainDrainQueue_hook)(void (*original)(void), void (*override)(void (*)(void)));
// all with the Swift calling convention.
typedef SWIFTCC void (*enqueue_original_t)(void *job);
typedef SWIFTCC void (*enqueue_hook_t)(void *job, enqueue_original_t original);
typedef SWIFTCC void (*drain_original_t)(void);
typedef SWIFTCC void (*drain_override_t)(drain_original_t original);
typedef SWIFTCC void (*drain_hook_t)(drain_original_t original, drain_override_t override);

static int hooks_installed;

// Defined by ConveyorCore (Swift, @_cdecl). Weak: a process that links this target without
// ConveyorCore keeps the runtime's behaviour.
extern void cnv_main_executor_enqueue(void *job) __attribute__((weak));
extern void cnv_main_thread_serve_forever(void) __attribute__((weak));
extern int cnv_main_executor_install(void) __attribute__((weak));

static SWIFTCC void enqueue_main_hook(void *job, enqueue_original_t original) {
    if (cnv_main_executor_enqueue) {
        cnv_main_executor_enqueue(job);
    } else {
        original(job);
    }
}

static SWIFTCC void async_main_drain_hook(drain_original_t original, drain_override_t override) {
    (void)override;
    if (cnv_main_thread_serve_forever) {
        cnv_main_thread_serve_forever();   // never returns
    }
    original();
}

int cnv_main_executor_hooks_installed(void) { return hooks_installed; }

static int main_executor_installed;

int cnv_main_executor_installed(void) { return main_executor_installed; }

/// Sets `*slot` to `value` only if nobody set it before (another library may own it).
static int install_hook(const char *name, void *value) {
    void **slot = (void **)dlsym(RTLD_DEFAULT, name);
    if (!slot) return 0;
    void *expected = NULL;
    return __atomic_compare_exchange_n(slot, &expected, value, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/// Whether `a` and `b` are defined by the same loaded object.
static int same_object(void *a, void *b) {
    Dl_info first, second;
    if (!a || !b || !dladdr(a, &first) || !dladdr(b, &second)) return 0;
    return first.dli_fbase == second.dli_fbase;
}

/// Whether `symbol` is defined by the same loaded object as this file's code.
static int defined_here(void *symbol) {
    return same_object((void *)cnv_main_executor_hooks_installed, symbol);
}

__attribute__((constructor))
static void cnv_main_thread_bridge_init(void) {
    // Under the drop-in library, a program that links Conveyor's Swift module first hands
    // the library its runtime (DropInAdoption.c). Then libdispatch's names are this
    // runtime's own, as in the library itself: there is no other main queue to bridge to.
    int adopted = cnv_drop_in_adopted();
    // This copy is the drop-in library's own when libdispatch's main queue is defined here
    // (the library is first in the lookup order, being preloaded).
    int in_drop_in_library = defined_here(dlsym(RTLD_DEFAULT, "_dispatch_main_q"));
    if (!adopted) {
        main_queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
        async_f = (async_f_t)dlsym(RTLD_DEFAULT, "dispatch_async_f");
        main_handle = (handle_4cf_t)dlsym(RTLD_DEFAULT, "_dispatch_get_main_queue_handle_4CF");
        main_callback = (callback_4cf_t)dlsym(RTLD_DEFAULT, "_dispatch_main_queue_callback_4CF");
    }
    // In the drop-in library (Sources/CConveyorDropIn) these names are Conveyor's own main
    // queue: there is no other main queue to bridge to, and forwarding to itself would
    // loop. (A program that links Conveyor's Swift module and runs under a drop-in
    // library that refused its runtime finds the library's names here, from another
    // object, and bridges to them.)
    if (main_queue && defined_here(main_queue)) {
        main_queue = NULL;
        async_f = NULL;
        main_handle = NULL;
        main_callback = NULL;
    }

    if (!cnv_main_executor_enqueue || !cnv_main_thread_serve_forever) return;
    // Swift 6.3 sends MainActor jobs to `MainActor.executor`, not through the enqueue hook
    // below: make that executor Conveyor's main queue, before anything can use it. The
    // drop-in library leaves the platform's executor, which reaches its main queue through
    // `dispatch_async_f`; a program that links Conveyor installs its own (also when the
    // library runs beside it).
    if (!in_drop_in_library && cnv_main_executor_install) {
        main_executor_installed = cnv_main_executor_install();
    }
    // Both or neither: MainActor jobs on Conveyor's main queue need Conveyor's loop to
    // serve an `async` main.
    if (install_hook("swift_task_enqueueMainExecutor_hook", (void *)(enqueue_hook_t)enqueue_main_hook)) {
        install_hook("swift_task_asyncMainDrainQueue_hook", (void *)(drain_hook_t)async_main_drain_hook);
        hooks_installed = 1;
    } else if (adopted) {
        // The library's copy of this constructor ran first and set them, unless another
        // library had: its hooks call the runtime's entry points, which now forward here.
        void **slot = (void **)dlsym(RTLD_DEFAULT, "swift_task_enqueueMainExecutor_hook");
        hooks_installed = slot && same_object(*slot, dlsym(RTLD_DEFAULT, "conveyor_drop_in_adopt"));
    }
}
