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

// The drop-in library's forwarding table: one runtime per process.
//
// Every C entry point of the runtime (cnv_runtime_entries.def) is reached in this library
// through a stub: the library's libdispatch names are aliases of the stubs (exports.ld),
// and its C code's calls into the runtime are bound to them by the linker (`--wrap`,
// forwarding.rsp, makes a call to `<entry>` one to `__wrap_<entry>`). A stub jumps through its slot of
// `cnv_drop_in_forward_table`, which starts at the library's own implementation
// (`__real_<entry>`). When the program itself links Conveyor's Swift module, it hands
// the library its own entry points before `main` (DropIn.c, `conveyor_drop_in_adopt`),
// and from then on every dispatch call of the process reaches the program's runtime.
// A stub is a tail jump: it keeps every argument register and the stack as they were.

#include <cnv_runtime_entries.def>

// Two labels per stub: `__wrap_<entry>`, hidden, which the library's own calls bind to
// directly, and `conveyor_forward_<entry>`, exported, which exports.ld gives libdispatch's
// name (an alias takes its target's visibility).
#define STUB_LABELS(name, kind) \
    .globl __wrap_##name; .hidden __wrap_##name; .type __wrap_##name, kind; \
    .globl conveyor_forward_##name; .type conveyor_forward_##name, kind; \
    .p2align 4; __wrap_##name: conveyor_forward_##name:
#define STUB_SIZES(name) \
    .size __wrap_##name, . - __wrap_##name; .size conveyor_forward_##name, . - conveyor_forward_##name;

#if defined(__x86_64__)
// An indirect-branch landing pad when the library is built for Intel CET.
#if defined(__CET__)
#define LANDING endbr64;
#else
#define LANDING
#endif
#define STUB(name, index) \
    STUB_LABELS(name, @function) \
    LANDING \
    jmp *(cnv_drop_in_forward_table + 8 * (index))(%rip); \
    STUB_SIZES(name)
#define SLOT(name) .quad __real_##name;
#define NOTE_SECTION .section .note.GNU-stack, "", @progbits
#elif defined(__aarch64__)
// A branch-target landing pad when the library is built with branch protection.
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define LANDING bti c;
#else
#define LANDING
#endif
#define STUB(name, index) \
    STUB_LABELS(name, %function) \
    LANDING \
    adrp x16, cnv_drop_in_forward_table; \
    add x16, x16, :lo12:cnv_drop_in_forward_table; \
    ldr x16, [x16, #(8 * (index))]; br x16; \
    STUB_SIZES(name)
#define SLOT(name) .xword __real_##name;
#define NOTE_SECTION .section .note.GNU-stack, "", %progbits
#else
#error "Forwarding.S: no stubs for this architecture"
#endif

    .data
    .p2align 3
    .globl cnv_drop_in_forward_table
    .hidden cnv_drop_in_forward_table
    .type cnv_drop_in_forward_table, %object
cnv_drop_in_forward_table:
#define CNV_RUNTIME_ENTRY(name) SLOT(name)
#include <cnv_runtime_entries.def>
#undef CNV_RUNTIME_ENTRY
    .size cnv_drop_in_forward_table, . - cnv_drop_in_forward_table
    .if (. - cnv_drop_in_forward_table) != 8 * CNV_RUNTIME_ENTRY_COUNT
    .error "Forwarding.S: the table does not have one slot per entry point"
    .endif

    .text
// __COUNTER__ counts the stubs from 0 in the list's order, the table's.
#define CNV_RUNTIME_ENTRY(name) STUB(name, __COUNTER__)
#include <cnv_runtime_entries.def>
#undef CNV_RUNTIME_ENTRY
// Nothing else used __COUNTER__ before the stubs: the last stub's index was the last slot's.
    .if __COUNTER__ != CNV_RUNTIME_ENTRY_COUNT
    .error "Forwarding.S: the stubs' indices do not match the table's slots"
    .endif

    NOTE_SECTION
