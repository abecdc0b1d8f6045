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

/// A timer cancelled while it is suspended (`Program.Op.cancelSuspended`, plain threads
/// only): a repeating timer on `q` starting after `microseconds`, suspended after `pause`
/// µs, cancelled, resumed `pause` µs later. Its cancel handler must run once, after the
/// resume (a suspended source runs nothing), as a block of `q`; no event handler may
/// follow it. Events before the cancel may or may not have run. The caller lets the
/// source go right after the resume: the cancel handler must still run.
///
/// libdispatch breaks the first rule about once in 2,000 programs (a Swift API run of 6 s):
/// a source whose invoke is under way when it is suspended goes on to the cancel handler,
/// as `_dispatch_source_invoke2` checks the suspension only at its start (and a cancel
/// handler that let the source go then crashed it, releasing a suspended object: 2 of 3
/// C API runs). Conveyor keeps the rule a suspended object runs nothing.
extension Runner {
    func cancelSuspended(_ q: Int, microseconds: Int, pause: Int) {
        let what = "timer cancelled while suspended on q\(q)"
        let window = SuspendWindow()
        let cancelHandler = Once("\(what): cancel handler")
        let cancelHandlerRan = Flag()
        checker.expect()
        let event: @Sendable () -> Void = { [self] in
            enterBlock(q, what: "\(what): event")
            if cancelHandlerRan.isSet { checker.fail("\(what): an event handler ran after the cancel handler") }
            checker.leave(q, barrier: false)
        }
        let cancelled: @Sendable () -> Void = { [self] in
            enterBlock(q, what: "\(what): cancel handler")
            cancelHandler.run(checker)
            if window.resumed.load(ordering: .sequentiallyConsistent) == 0 {
                checker.fail("\(what): the cancel handler ran while the source was suspended")
            }
            cancelHandlerRan.set()
            checker.leave(q, barrier: false)
            checker.done()
        }
        let nanoseconds = UInt64(microseconds) * 1_000
        let suspend: () -> Void, cancel: () -> Void, resume: () -> Void
        if program.api == .c {
            let source = cSource(event: { event(); return false }, cancelled: cancelled, releasedByCancel: false) {
                compose_c_timer_create(cQueues[q], nanoseconds, 0, nanoseconds, nanoseconds / 4, $0, $1, $2)
            }
            (suspend, cancel, resume) = ({ compose_c_suspend(source) }, { compose_c_source_cancel(source) }, {
                compose_c_resume(source)
                compose_c_release(source)
            })
        } else {
            let source = DispatchSource.makeTimerSource(queue: queues[q])
            source.setEventHandler(handler: event)
            source.setCancelHandler(handler: cancelled)
            source.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)),
                            leeway: .nanoseconds(Int(nanoseconds / 4)))
            source.activate()
            (suspend, cancel, resume) = ({ source.suspend() }, { source.cancel() }, { source.resume() })
        }
        var interval = timespec(tv_sec: 0, tv_nsec: pause * 1_000)
        nanosleep(&interval, nil)
        suspend()
        cancel()
        nanosleep(&interval, nil)
        window.resumed.store(checker.tick(), ordering: .sequentiallyConsistent)
        resume()
    }
}
