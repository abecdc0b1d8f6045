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

// A C++ program on Conveyor's <dispatch/dispatch.h>: the chapter's group and apply
// listings with C++ lambdas as the _f forms' functions and blocks side by side.
#include <dispatch/dispatch.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>

int main() {
    std::atomic<int> sum{0};
    dispatch_queue_t global = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_group_t group = dispatch_group_create();
    for (int i = 1; i <= 10; i++) {
        dispatch_group_async_f(group, global, &sum, [](void *context) { static_cast<std::atomic<int> *>(context)->fetch_add(1); });
    }
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_apply_f(10, global, &sum, [](void *context, size_t i) { static_cast<std::atomic<int> *>(context)->fetch_add(static_cast<int>(i)); });
    std::printf("C++: sum = %d (expected 55)\n", sum.load());
    dispatch_release(group);
    return sum.load() == 55 ? 0 : 1;
}
