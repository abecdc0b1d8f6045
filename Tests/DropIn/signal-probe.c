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


// A C program under the drop-in library ends by a signal as it does without it: the Swift
// runtime that the library brings must not keep its crash handlers in a program that is
// not a Swift program (they printed a backtrace and let the program run on). Usage:
//   signal-probe SIGNAL [dispatch]   raises SIGNAL (SEGV, BUS, ILL, ABRT, FPE, TRAP, QUIT),
//                                    after a block ran on a queue with "dispatch";
// it prints "survived" and exits 0 only when the signal did not end it.
#include <dispatch/dispatch.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    static const struct { const char *name; int number; } signals[] = {
        { "SEGV", SIGSEGV }, { "BUS", SIGBUS }, { "ILL", SIGILL }, { "ABRT", SIGABRT },
        { "FPE", SIGFPE }, { "TRAP", SIGTRAP }, { "QUIT", SIGQUIT },
    };
    if (argc < 2) { fprintf(stderr, "usage: signal-probe SIGNAL [dispatch]\n"); return 2; }
    if (argc > 2 && strcmp(argv[2], "dispatch") == 0) {
        dispatch_sync(dispatch_get_global_queue(0, 0), ^{ printf("a block ran\n"); });
    }
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (strcmp(argv[1], signals[i].name) == 0) {
            raise(signals[i].number);
            printf("survived %s\n", argv[1]);
            return 0;
        }
    }
    fprintf(stderr, "unknown signal %s\n", argv[1]);
    return 2;
}
