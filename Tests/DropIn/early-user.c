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

// A shared library whose constructor makes a dispatch object and keeps it, as a library
// may: under the drop-in library the object belongs to the library's own runtime before
// any program starts, so the library must refuse to forward to a program's runtime
// (Scripts/drop-in.sh; Sources/CConveyorDropIn/DropIn.c, `conveyor_drop_in_adopt`).
#include <dispatch/dispatch.h>

dispatch_semaphore_t early_user_semaphore;

__attribute__((constructor)) static void make_an_object_early(void) {
    early_user_semaphore = dispatch_semaphore_create(0);
}
