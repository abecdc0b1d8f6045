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

extension EventLoop {
    /// Runs `body` on the event thread and returns when it has run: for state that
    /// belongs to that thread, such as its signal mask. Must not be called from the
    /// event thread, nor while holding a lock an event-thread callback may take, nor from a
    /// timer callback a pool worker fires (it holds `runnerLock`, which the event thread
    /// needs to run `body`).
    func runOnEventThread(_ body: @escaping @Sendable () -> Void) {
        let onEventThread = lock.withLock { isEventThreadLocked() }
        if onEventThread {
            body()
            return
        }
        let done = DispatchSemaphore(value: 0)
        addTimer(clock: .monotonic, deadline: 0, leeway: 0) { _ in
            body()
            done.signal()
        }
        done.wait()
    }
}
