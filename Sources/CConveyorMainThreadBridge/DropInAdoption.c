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

// One runtime per process: a program that links Conveyor's Swift module and runs under the
// drop-in library (README, "Running any program on Conveyor").
//
// Such a process holds two copies of the runtime: the program's, which its Swift code uses
// directly, and the library's, behind libdispatch's names, which Foundation, Swift
// concurrency and every library built against Dispatch call. The program's copy hands
// the library its own C entry points while the program loads (this file, from the
// bridge's constructor, MainThreadBridge.c), and the library forwards its libdispatch
// names to them from then on (Sources/CConveyorDropIn/Forwarding.S): one pool, one main
// queue, one event thread. The library's own copy stays asleep.
//
// Only the copy in the main executable offers itself: a copy in another shared library
// (libConveyorDispatch.so, a plugin) is not the program's, and the library refuses a
// table from another build (CNV_RUNTIME_FINGERPRINT).
//
// No header that declares the runtime's entry points may be included here: each is
// declared below, with one type, only to take its address.
#define _GNU_SOURCE
#include "CConveyorMainThreadBridge.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

// Weak, so that this target links without ConveyorCore (no product does that: every one
// that has this target has ConveyorCore, whose definitions then bind here at link time).
// Without it a missing entry would be NULL, or, in a position-independent executable,
// bound at load time to the drop-in library's own export of that name: the library would
// then be offered its own functions.
#define CNV_RUNTIME_ENTRY(name) extern void name(void) __attribute__((weak));
#include <cnv_runtime_entries.def>
#undef CNV_RUNTIME_ENTRY

static void *const entries[] = {
#define CNV_RUNTIME_ENTRY(name) (void *)name,
#include <cnv_runtime_entries.def>
#undef CNV_RUNTIME_ENTRY
};

_Static_assert(sizeof entries / sizeof entries[0] == CNV_RUNTIME_ENTRY_COUNT, "cnv_runtime_entries.def is inconsistent");

/// A search of the loaded objects for the one whose segments hold `address`: `found_at`
/// is its place in the dynamic loader's list (0: the main executable), -1 if none.
struct containing_object { uintptr_t address; int index; int found_at; };

/// dl_iterate_phdr's callback for `struct containing_object`: stops at the object found.
static int find_containing_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct containing_object *search = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        if (search->address >= start && search->address < start + segment->p_memsz) {
            search->found_at = search->index;
            return 1;
        }
    }
    search->index++;
    return 0;
}

/// Whether this code is part of the main executable (the first object the dynamic
/// loader lists), not of a shared library.
static int in_main_executable(void) {
    struct containing_object search = { (uintptr_t)(void *)in_main_executable, 0, -1 };
    dl_iterate_phdr(find_containing_object, &search);
    return search.found_at == 0;
}

static int adopted = -1;   // -1: not decided yet. Decided by the first call, at load time.

int cnv_drop_in_adopted(void) {
    if (adopted >= 0) return adopted;
    adopted = 0;
    cnv_drop_in_adopt_function adopt = (cnv_drop_in_adopt_function)dlsym(RTLD_DEFAULT, "conveyor_drop_in_adopt");
    if (!adopt || !in_main_executable()) return 0;
    for (size_t i = 0; i < CNV_RUNTIME_ENTRY_COUNT; i++) {
        if (!entries[i]) return 0;
    }
    static const struct cnv_runtime_table table = {
        CNV_RUNTIME_FINGERPRINT, CNV_RUNTIME_ENTRY_COUNT, entries,
    };
    const char *why = "it gave no reason";
    if (adopt(&table, &why)) {
        adopted = 1;
    } else {
        fprintf(stderr,
                "Conveyor: this program links Conveyor's Swift module and runs under the drop-in library, "
                "which cannot forward to the program's runtime (%s); the process has two runtimes, "
                "joined only on the main queue\n",
                why);
    }
    return adopted;
}
