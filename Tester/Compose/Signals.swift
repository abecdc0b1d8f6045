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
import Conveyor
#else
import Dispatch
#endif
import Glibc

extension Program {
    /// The signals the `signals` op raises; the tester ignores both from its start (both
    /// libraries), so a signal raised while no source watches it ends nothing.
    static let testSignals: [Int32] = [SIGUSR1, SIGUSR2]

    /// `threads` with signal sources (see `inserting`). Several plain threads may watch the
    /// same signal at once: their sources come and go while the others' signals arrive.
    static func addingSignals(to threads: [[Op]], seed: UInt64, queues: [Queue], api: API) -> [[Op]] {
        let eligible = queues.filter { !$0.main }.map(\.index)
        return inserting(into: threads, seed: seed, salt: 0x5349_474E_414C, percent: 20, api: api) { random in
            Op.signals(queue: eligible[random.below(eligible.count)], signal: random.below(testSignals.count),
                       sources: random.within(1...3), rounds: random.within(1...4),
                       raiseFrom: random.percent(50) ? eligible[random.below(eligible.count)] : nil,
                       suspendFirst: random.percent(40))
        }
    }
}

extension Runner {
    /// Signal sources on `q` (`Program.Op.signals`): `sources` sources of one signal, the
    /// first of them suspended for the whole op when `suspendFirst`; then `rounds` times
    /// the signal is sent to the process (`kill`), by this thread or by a block of
    /// `raiseFrom`, and every running source's handler must see it (a later event than
    /// the last before the send) within the liveness bound. The kernel merges signals that
    /// arrive while one is pending, other plain threads send the same signal, so no count
    /// is exact; each event must carry at least one. After the suspended source's resume,
    /// one more signal must reach every source. Then each is cancelled: its cancel handler
    /// runs once, after every event handler.
    func signals(_ q: Int, signal: Int32, sources count: Int, rounds: Int, raiseFrom: Int?, suspendFirst: Bool,
                 from submitter: Submitter) {
        let what = "signal \(signal)'s sources on q\(q)"
        let progress = makeSemaphore(0)
        let records = (0..<count).map { _ in SourceRecord() }
        // Each handler reads its own source, one at a time.
        let boxes = records.indices.map { _ in UncheckedBox(DispatchSource.makeSignalSource(signal: signal, queue: queues[q])) }
        let checker = checker
        for (index, box) in boxes.enumerated() {
            let record = records[index]
            let label = "\(what): source \(index)"
            box.value.setEventHandler(handler: checkedHandler(q, what: "\(label): event handler", {
                record.event(checker, what: label, problem: box.value.data == 0 ? "an event with no signal" : nil)
            }, after: progress.signal))
            box.value.setRegistrationHandler(handler: checkedHandler(q, what: "\(label): registration handler", { record.registered(checker, what: label) },
                                                                     after: progress.signal))
            checker.expect()
            box.value.setCancelHandler(handler: checkedHandler(q, what: "\(label): cancel handler", { record.cancelled(checker, what: label) },
                                                               after: { checker.done() }))
            if index == 0 && suspendFirst { box.value.suspend() }
            box.value.activate()
        }
        let running = suspendFirst ? Array(records.dropFirst()) : records
        func awaitUntil(_ why: String, _ reached: () -> Bool) -> Bool {
            awaitSources(records, what: what, progress: progress, why, until: reached)
        }
        /// Waits until every record in `watched` has seen an event after `before`.
        func awaitEvents(_ watched: [SourceRecord], after before: [Int], _ why: String) -> Bool {
            awaitUntil("\(why), not every source saw it") { !zip(watched, before).contains { $0.events <= $1 } }
        }
        // libdispatch watches for the signal once a source's registration is done, which
        // its registration handler tells (asynchronously, after `activate()`): a signal
        // sent earlier may reach some sources and not others.
        guard awaitUntil("the registration handlers did not all run", { running.allSatisfy(\.isRegistered) }) else {
            for box in boxes { box.value.cancel() }
            if suspendFirst { boxes[0].value.resume() }
            return
        }
        for round in 1...rounds {
            let before = running.map(\.events)
            if let raiseFrom {
                let order = submitter.order(raiseFrom, in: program)
                checker.expect()
                queues[raiseFrom].async { [self] in
                    runBlock(raiseFrom, barrier: false, what: "a block sending \(what) their signal", order: order) { _ in
                        kill(getpid(), signal)
                    }
                }
            } else {
                kill(getpid(), signal)
            }
            if !awaitEvents(running, after: before, "signal sent in round \(round) of \(rounds)") { break }
        }
        if suspendFirst {
            // libdispatch starts watching for a source suspended before its activation
            // only at its resume: the signals sent before may never reach it (Conveyor
            // counts them from the activation, README "What is different"). One sent
            // after the resume must reach every source.
            boxes[0].value.resume()
            if awaitUntil("the resumed source's registration handler did not run", { records[0].isRegistered }) {
                let before = records.map(\.events)
                kill(getpid(), signal)
                _ = awaitEvents(records, after: before, "signal sent after the first source's resume")
            }
        }
        for box in boxes { box.value.cancel() }
        progress.release()
    }
}
