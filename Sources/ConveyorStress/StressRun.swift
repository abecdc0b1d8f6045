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
#if canImport(Glibc)
import Glibc
#endif

/// The whole stress run: the pool phases (CPU-bound bursts, mixed QoS under saturation)
/// on their own, then producer threads that pick rounds (queues, sources,
/// synchronization, `sync` through target chains) at random until time is up, then the checks of the shared queues.
/// The last stretch (up to 11 s) leaves out the rounds that block many workers, so the
/// pool's extra threads have retired when the run ends.
struct StressRun {
    let options: StressOptions
    let ledger = Ledger()

    func run() {
        PoolPhases(ledger: ledger).run()
        let shared = (0..<3).map { index -> (queue: DispatchQueue, probe: QueueProbe) in
            let label = "stress.shared.\(index)"
            return (DispatchQueue(label: label), QueueProbe(name: label, isSerial: true, serialAncestors: [], ledger: ledger))
        }
        let end = DispatchTime.now() + .nanoseconds(Int(options.seconds * 1e9))
        // The last stretch blocks no workers, so the threads the pool added for blocked
        // ones reach their idle timeout (10 s) before the thread count is compared.
        let quietFrom = end - .nanoseconds(Int(min(11, options.seconds / 2) * 1e9))
        let chains = SyncChains()
        let threads = (0..<options.producers).map { producer in
            let seed = options.seed ^ (UInt64(producer + 1) &* 0x9E37_79B9_7F4A_7C15)
            let ledger = self.ledger
            let sharedQueues = shared.map { ($0.queue, $0.probe) }
            return ProducerThread {
                var rng = SplitMix64(seed: seed)
                let queues = QueueRound(producer: producer, ledger: ledger, shared: sharedQueues.map { (queue: $0.0, probe: $0.1) })
                let sources = SourceRound(producer: producer, ledger: ledger)
                let sync = SyncRound(producer: producer, ledger: ledger)
                let syncChains = SyncChainRound(ledger: ledger, chains: chains)
                while DispatchTime.now() < end {
                    switch rng.below(11) {
                    case 0..<6: queues.run(using: &rng)
                    case 6..<8: sources.run(using: &rng)
                    case 8: syncChains.run(using: &rng)
                    default: sync.run(using: &rng, quiet: DispatchTime.now() >= quietFrom)
                    }
                }
            }
        }
        for thread in threads { thread.join() }
        // Every task on the shared queues was waited for by its round's group.
        for (_, probe) in shared { probe.verifyCounts() }
    }
}
