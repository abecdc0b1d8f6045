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

import Conveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Queues shared by every producer for `sync` through target chains: two serial
/// children of one serial queue (serial → serial → global), and a serial child of a
/// concurrent queue that is not global (serial → concurrent → global).
final class SyncChains: Sendable {
    /// A count of closures inside part of a chain.
    final class InFlight: Sendable {
        let count = Atomic<Int>(0)
    }

    let top: DispatchQueue
    let children: [DispatchQueue]
    let wide = DispatchQueue(label: "stress.chain.wide", attributes: .concurrent)
    let underWide: DispatchQueue
    /// Closures inside `top` (through either child) now: at most one.
    let insideTop = InFlight()
    /// Closures inside `underWide` now: at most one (`wide` itself may run several).
    let insideUnderWide = InFlight()

    init() {
        let top = DispatchQueue(label: "stress.chain.top")
        self.top = top
        children = (0..<2).map { DispatchQueue(label: "stress.chain.child\($0)", target: top) }
        underWide = DispatchQueue(label: "stress.chain.under-wide", target: wide)
    }
}

/// One round of `sync` through the shared chains, mixed with `async` to the same queues:
/// every `sync` closure must run on the calling thread (issue 11, finding 1), alone on
/// each serial level, and after the `async` work its caller submitted before it.
struct SyncChainRound {
    let ledger: Ledger
    let chains: SyncChains

    func run(using rng: inout SplitMix64) {
        let ledger = self.ledger, chains = self.chains
        let me = pthread_self()
        for _ in 0..<(1 + rng.below(40)) {
            let throughWide = rng.chance(35)
            let queue = throughWide ? chains.underWide : chains.children[rng.below(2)]
            let inside = throughWide ? chains.insideUnderWide : chains.insideTop
            let name = queue.label
            let asyncDone = Atomic<Bool>(true)
            if rng.chance(40) {
                asyncDone.store(false, ordering: .relaxed)
                queue.async {
                    let n = inside.count.add(1, ordering: .acquiringAndReleasing).newValue
                    ledger.check(n == 1, "\(n) closures at once inside the serial part of \(name)'s chain (async)")
                    ledger.taskRan()
                    inside.count.subtract(1, ordering: .acquiringAndReleasing)
                    asyncDone.store(true, ordering: .releasing)
                }   // not waited for: the sync below must find it done (FIFO)
            }
            let body = {
                let n = inside.count.add(1, ordering: .acquiringAndReleasing).newValue
                ledger.check(n == 1, "\(n) closures at once inside the serial part of \(name)'s chain (sync)")
                ledger.check(pthread_equal(pthread_self(), me) != 0, "sync on \(name) ran on another thread than its caller's")
                ledger.check(asyncDone.load(ordering: .acquiring), "sync on \(name) ran before the async its caller submitted first")
                ledger.taskRan()
                inside.count.subtract(1, ordering: .acquiringAndReleasing)
            }
            if throughWide && rng.chance(20) {
                chains.wide.sync(flags: .barrier) {
                    ledger.check(pthread_equal(pthread_self(), me) != 0, "barrier sync on \(chains.wide.label) ran on another thread")
                    ledger.taskRan()
                }
            } else {
                queue.sync(execute: body)
            }
        }
    }
}
