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

import CConveyor

// dispatch_once_f. The predicate is a `dispatch_once_t` (intptr_t) that starts at 0; the
// headers' inline fast path skips the call once it reads ~0 (DLOCK_ONCE_DONE). The state
// machine runs on the predicate's low 32-bit half (a futex word on little-endian Linux):
// 0 untouched, 1 running, 2 running with waiters, 0xFFFF_FFFF done. While the function
// runs, the high half holds the running thread's id: a call for the same predicate from
// inside the function would wait for itself for ever, and traps (libdispatch crashes
// there, "trying to lock recursively").
@_cdecl("cnv_dispatch_once_f")
package func cnv_dispatch_once_f(_ predicate: UnsafeMutablePointer<Int>, _ context: UnsafeMutableRawPointer?, _ function: CFunction) {
    let raw = UnsafeMutableRawPointer(predicate)
    let low = raw.assumingMemoryBound(to: UInt32.self)
    let high = (raw + 4).assumingMemoryBound(to: UInt32.self)
    let done: UInt32 = 0xFFFF_FFFF
    if cnv_atomic_load_u32(low) == done { return }
    var expected: UInt32 = 0
    if cnv_atomic_cas_u32(low, &expected, 1) != 0 {
        cnv_atomic_store_u32(high, UInt32(bitPattern: cnv_gettid()))
        function(context)
        // The high half first, then the low half: the inline fast path reads all 64 bits
        // and sees ~0 only after the low half's store, which publishes the function's
        // effects (its other half is the waiters' load below and the fast path's load).
        cnv_atomic_store_u32(high, done)
        if cnv_atomic_exchange_u32(low, done) == 2 { _ = cnv_futex_wake(low, Int32.max) }
        return
    }
    let caller = UInt32(bitPattern: cnv_gettid())
    while true {
        let seen = cnv_atomic_load_u32(low)
        if seen == done { return }
        // Only the running thread itself can read its own id here (others read 0, another
        // thread's id, or done): the store above precedes the function on that thread.
        if cnv_atomic_load_u32(high) == caller {
            fatalError("Conveyor: dispatch_once called for a predicate from inside its own function (this would deadlock)")
        }
        // Announce the wait (1 → 2) before sleeping; the runner's exchange sees the 2 and
        // wakes everyone, or we see done and never sleep.
        if seen == 1 {
            var running: UInt32 = 1
            _ = cnv_atomic_cas_u32(low, &running, 2)
            continue
        }
        _ = cnv_futex_wait(low, 2, -1)
    }
}
