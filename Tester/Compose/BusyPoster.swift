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

#if CONVEYOR
import CComposeConveyor
import Conveyor
#else
import CComposeDispatch
import Dispatch
#endif
import Glibc
import Synchronization

/// A busy poster and a crowd that waits for its post (`Program.Op.busyPoster`), through
/// either API: a block on a global queue posts a gate opener (to a global queue, or to a
/// new serial queue: a drain the poster's thread would run next), then stays runnable
/// until the crowd is done, as a job the kernel preempted would. `members` blocks to
/// `queue` then each wait for the gate. More members than the pool may have threads
/// block until the opener runs: posted first, it must run without waiting for a thread
/// behind them.
///
/// With the pool's cap lowered (`Runner.capLowered`), the poster stays runnable only
/// until the opener ran, which is what the op checks: holding its thread longer, beside
/// other ops' blocks waiting in `sync` (three of them on a serial queue whose drain was
/// queued behind on its global queue), it left a pool of 4 threads none for that drain,
/// as it would any pool of 4 (libdispatch's too), while at 5 the same program passes
/// (program 924335014, C API, cap 4; Conveyor's reserve threads are for what blocked
/// jobs posted, not for a cap that is simply used up).
///
/// One busy poster at a time, and only with two CPUs or more: a pool keeps as many
/// runnable threads as CPUs and adds none for work that stays runnable, so posters on
/// every CPU leave none for the crowd, and the openers, on either library (libdispatch's
/// first-in-first-out queue lets an opener through only when a thread was free as it was
/// posted).
extension Runner {
    func busyPoster(_ q: Int, members: Int, serial: Bool, from submitter: Submitter) {
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 else { return }
        busyPosterTurn.withLock { _ in runBusyPoster(q, members: members, serial: serial, from: submitter) }
    }

    private func runBusyPoster(_ q: Int, members: Int, serial: Bool, from submitter: Submitter) {
        let record = GroupRecord(members: members)
        let gate = DispatchSemaphore(value: 0)
        let posted = DispatchSemaphore(value: 0)
        let crowdDone = Flag()
        let openerRan = Flag()
        let checker = self.checker
        let openGate: @Sendable () -> Void = {
            openerRan.set()
            for _ in 0..<members { gate.signal() }
        }
        let done = capLowered ? openerRan : crowdDone
        let giveUp = liveness + 1
        let api = program.api
        let poster: @Sendable () -> Void = {
            if api == .c {
                nonisolated(unsafe) let target = serial ? compose_c_queue_create("compose.poster", 0, 0, nil, 2)! : compose_c_global(2)!
                compose_c_async(target, 0, context(openGate), runContext)
                if serial { compose_c_release(target) }
            } else if serial {
                DispatchQueue(label: "compose.poster").async(execute: openGate)
            } else {
                DispatchQueue.global().async(execute: openGate)
            }
            posted.signal()
            let giveUpAt = DispatchTime.now() + giveUp
            while !done.isSet && DispatchTime.now() < giveUpAt { sched_yield() }   // runnable, never blocked
        }
        if api == .c {
            compose_c_async(compose_c_global(2), 0, context(poster), runContext)
        } else {
            DispatchQueue.global().async(execute: poster)
        }
        posted.wait()
        func member() -> @Sendable () -> Void {
            let capture = Capture(record)
            let order = submitter.order(q, in: program)
            checker.expect()
            return { [self] in
                withExtendedLifetime(capture) {}
                runBlock(q, barrier: false, what: "busy poster's crowd member", order: order) { _ in gate.wait() }
                record.finished.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
        }
        let timedOut = !groupFinishes(members, on: q, member)
        crowdDone.set()
        if timedOut {
            checker.fail("a crowd of \(members) blocks on q\(q) waiting for a busy block's post to a \(serial ? "new serial" : "global") queue was not done in time")
        } else {
            record.check(checker, after: "the busy poster's crowd's wait")
        }
    }
}


/// Held by the plain thread that runs a busy poster (`Runner.busyPoster`).
private let busyPosterTurn = Mutex<Void>(())
