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

// The Swift runtime that this library brings into a program that is not a Swift program.
//
// LD_PRELOAD passes to every child, so under conveyor-run a shell, grep or any C tool
// loads this library, and with it Swift's runtime, whose crash backtracer installs
// handlers for SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE and SIGSEGV when it
// starts. A signal sent to such a child (kill -SEGV, raise) then printed a Swift backtrace
// and the child ran on, exiting 0 where it would have died by the signal; a real crash
// gained a page of backtrace. A program that links Swift's runtime itself, or through a
// library of its own, has those handlers anyway and keeps them. In any other program, the
// handlers that Swift's runtime installed are put back to the default before `main` (this
// constructor runs after the runtime's, which this library depends on). A library with
// Swift code that such a program opens later with dlopen finds the default handlers.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

/// Whether `name` (a path or a bare name) is Swift's core runtime library.
static int is_swift_core(const char *name) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return strncmp(base, "libswiftCore.so", 15) == 0;
}

struct swift_use { const char *self; int needs; };

/// Whether an object of the program (not this library, nor the Swift runtime's own
/// libraries, which it brought) names Swift's core runtime among the libraries it needs.
static int object_needs_swift(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct swift_use *use = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if ((use->self && strcmp(name, use->self) == 0) || strncmp(base, "libswift", 8) == 0) return 0;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        }
    }
    if (!dynamic) return 0;   // the vDSO, or a static program: no Swift runtime of its own
    uintptr_t strings = 0;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_STRTAB) strings = entry->d_un.d_ptr;
    }
    if (!strings) return 0;
    // The loader relocates DT_STRTAB in place on most targets; an address below the
    // object's base is still the file's.
    if (strings < info->dlpi_addr) strings += info->dlpi_addr;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_NEEDED && is_swift_core((const char *)(strings + entry->d_un.d_val))) {
            use->needs = 1;
            return 1;
        }
    }
    return 0;
}

__attribute__((constructor)) static void restore_crash_handlers_of_other_programs(void) {
    Dl_info self;
    struct swift_use use = { NULL, 0 };
    if (dladdr((void *)restore_crash_handlers_of_other_programs, &self)) use.self = self.dli_fname;
    dl_iterate_phdr(object_needs_swift, &use);
    if (use.needs) return;
    static const int signals[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction current;
        if (sigaction(signals[i], NULL, &current) != 0) continue;
        void *handler = (current.sa_flags & SA_SIGINFO) ? (void *)current.sa_sigaction : (void *)current.sa_handler;
        if (handler == (void *)SIG_DFL || handler == (void *)SIG_IGN) continue;
        Dl_info owner;
        // Only the runtime's own handlers: another library's constructor may have set one.
        if (!dladdr(handler, &owner) || !owner.dli_fname || !is_swift_core(owner.dli_fname)) continue;
        struct sigaction standard;
        memset(&standard, 0, sizeof standard);
        standard.sa_handler = SIG_DFL;
        sigemptyset(&standard.sa_mask);
        sigaction(signals[i], &standard, NULL);
    }
}
