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

// Whether this copy of the runtime has made state through its C entry points: a handle
// (any CObject, the global and main queues' included), the main queue, a block object.
// The drop-in library reads its own copy's flag before it forwards its names to a
// program's runtime (Sources/CConveyorDropIn/DropIn.c, `conveyor_drop_in_adopt`): objects
// and work made before then would reach a runtime that does not know them, so it refuses.
// Each loaded object that holds the runtime has its own flag (hidden).
#ifndef CNV_CAPI_STATE_H
#define CNV_CAPI_STATE_H

extern int cnv_capi_state_made __attribute__((visibility("hidden")));

/// Notes that the C API made runtime state. Relaxed: the flag is read while the process
/// loads, on the thread that made any state before it (constructors run on one thread).
/// Stores only the first time, so that later calls share the line read-only.
static inline void cnv_capi_note_state_made(void) {
    if (!__atomic_load_n(&cnv_capi_state_made, __ATOMIC_RELAXED)) {
        __atomic_store_n(&cnv_capi_state_made, 1, __ATOMIC_RELAXED);
    }
}

#endif
