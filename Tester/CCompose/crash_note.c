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

// The tester's crash note: which program was running when the process crashed. See
// include/compose_c.h.
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "compose_c.h"

static _Atomic uint64_t running_seed;
static _Atomic int has_seed;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT };
#define CRASH_SIGNAL_COUNT (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction previous[CRASH_SIGNAL_COUNT];

void compose_crash_note_set_seed(uint64_t seed) {
    atomic_store_explicit(&running_seed, seed, memory_order_relaxed);
    atomic_store_explicit(&has_seed, 1, memory_order_release);
}

/// Appends the decimal digits of `value` at `out`; returns the end.
static char *append_decimal(char *out, uint64_t value) {
    char digits[20];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0) *out++ = digits[--count];
    return out;
}

static void append_text(char **out, const char *text) {
    size_t length = strlen(text);
    memcpy(*out, text, length);
    *out += length;
}

static void on_crash(int signal_number, siginfo_t *info, void *context) {
    // Only async-signal-safe calls: a formatted line by hand, one write.
    char line[160];
    char *out = line;
    append_text(&out, "conveyor-compose: crashed (signal ");
    out = append_decimal(out, (uint64_t)signal_number);
    if (atomic_load_explicit(&has_seed, memory_order_acquire)) {
        uint64_t seed = atomic_load_explicit(&running_seed, memory_order_relaxed);
        append_text(&out, ") while running program ");
        out = append_decimal(out, seed);
        append_text(&out, " (replay: --seed ");
        out = append_decimal(out, seed);
        append_text(&out, ")\n");
    } else {
        append_text(&out, ") before the first program\n");
    }
    (void)!write(2, line, (size_t)(out - line));
    // On to the handler installed before (Swift's backtracer), or the default action.
    for (size_t index = 0; index < CRASH_SIGNAL_COUNT; index++) {
        if (crash_signals[index] != signal_number) continue;
        struct sigaction *old = &previous[index];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
            old->sa_sigaction(signal_number, info, context);
            return;
        }
        if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
            old->sa_handler(signal_number);
            return;
        }
        sigaction(signal_number, old, NULL);
        raise(signal_number);   // a fault re-raises itself when this returns, too
        return;
    }
}

void compose_crash_note_install(void) {
    for (size_t index = 0; index < CRASH_SIGNAL_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_crash;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(crash_signals[index], &action, &previous[index]);
    }
}
