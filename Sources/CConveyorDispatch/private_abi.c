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

// Entry points of libdispatch's private headers written in C: block forms, logging and
// start-up. Like the Swift ones (Sources/ConveyorCore/CAPI/CPrivateABI.swift) they are
// `cnv_` exports that Conveyor's own headers do not declare; the drop-in library
// (Sources/CConveyorDropIn) exports them under libdispatch's names.
#include <dispatch/dispatch.h>
#include <stdio.h>
#include "blocks_runtime.h"

void cnv_dispatch_async_and_wait_f(dispatch_queue_t queue, void *context, dispatch_function_t function);
void cnv_dispatch_barrier_async_and_wait_f(dispatch_queue_t queue, void *context, dispatch_function_t function);
uint64_t cnv_dispatch_benchmark_f(size_t count, void *context, dispatch_function_t function);

static void run_block(void *block) { ((dispatch_block_t)block)(); }

// The block is used only during the call: no copy.
void cnv_dispatch_async_and_wait(dispatch_queue_t queue, dispatch_block_t block) {
    cnv_dispatch_async_and_wait_f(queue, (void *)block, run_block);
}

void cnv_dispatch_barrier_async_and_wait(dispatch_queue_t queue, dispatch_block_t block) {
    cnv_dispatch_barrier_async_and_wait_f(queue, (void *)block, run_block);
}

uint64_t cnv_dispatch_benchmark(size_t count, dispatch_block_t block) {
    return cnv_dispatch_benchmark_f(count, (void *)block, run_block);
}

// Vouchers are Darwin's (Mach); libdispatch on Linux accepts and ignores them too.
dispatch_block_t cnv_dispatch_block_create_with_voucher(dispatch_block_flags_t flags, void *voucher,
                                                        dispatch_block_t block) {
    (void)voucher;
    return dispatch_block_create(flags, block);
}

dispatch_block_t cnv_dispatch_block_create_with_voucher_and_qos_class(dispatch_block_flags_t flags, void *voucher,
                                                                      dispatch_qos_class_t qos_class,
                                                                      int relative_priority, dispatch_block_t block) {
    (void)voucher;
    return dispatch_block_create_with_qos_class(flags, qos_class, relative_priority, block);
}

// Start-up: CoreFoundation calls it when it initialises. Conveyor starts its threads
// when work first needs them, so there is nothing to do.
void cnv_libdispatch_init(void) {}

// libdispatch's own diagnostics, which its private headers let other libraries call.
void cnv__dispatch_log(const char *message, ...) {
    va_list arguments;
    va_start(arguments, message);
    fputs("libdispatch (Conveyor): ", stderr);
    vfprintf(stderr, message, arguments);
    fputc('\n', stderr);
    va_end(arguments);
}

void cnv__dispatch_bug(size_t line, long value) {
    fprintf(stderr, "libdispatch (Conveyor): a caller reported a bug at line %zu, value %ld\n", line, value);
}
