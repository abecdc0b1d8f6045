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


// What the drop-in library refuses, each in its own run (Scripts/drop-in.sh checks the
// message and the abnormal end):
//   misuse-probe unprovided   calls an entry point libdispatch has and Conveyor does not;
//   misuse-probe late         loads the drop-in library with dlopen after libdispatch
//                             started (its path in $CONVEYOR_DROP_IN);
//   misuse-probe leave        leaves a group nobody entered: the library, an optimized
//                             build, must still say why it traps.
#include <dispatch/dispatch.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern dispatch_queue_t dispatch_workloop_create(const char *label);

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "unprovided") == 0) {
        dispatch_workloop_create("probe");
        puts("returned");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "late") == 0) {
        dispatch_semaphore_t done = dispatch_semaphore_create(0);
        dispatch_async(dispatch_get_global_queue(0, 0), ^{ dispatch_semaphore_signal(done); });
        dispatch_semaphore_wait(done, DISPATCH_TIME_FOREVER);
        void *library = dlopen(getenv("CONVEYOR_DROP_IN"), RTLD_NOW | RTLD_GLOBAL);
        printf("loaded: %s\n", library ? "yes" : dlerror());
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "leave") == 0) {
        dispatch_group_leave(dispatch_group_create());
        puts("returned");
        return 0;
    }
    fprintf(stderr, "usage: misuse-probe unprovided|late|leave\n");
    return 2;
}
