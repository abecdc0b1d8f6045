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
    /// How a `dataMerges` source combines what is merged into it.
    enum DataKind: Int, Sendable, CaseIterable { case add, or, replace }

    /// `threads` with an op that `make` draws put at a random place of some of them (each
    /// with the chance `percent`), from a stream of its own (`salt`), so that adding a kind
    /// of op keeps the programs of earlier seeds. Swift API programs only: the plain
    /// threads wait in these ops.
    static func inserting(into threads: [[Op]], seed: UInt64, salt: UInt64, percent: Int, api: API,
                          _ make: (inout SeededRandom) -> Op) -> [[Op]] {
        guard api == .swift else { return threads }
        var random = SeededRandom(seed: seed ^ salt)
        var threads = threads
        for index in threads.indices where random.percent(percent) {
            let op = make(&random)
            threads[index].insert(op, at: random.below(threads[index].count + 1))
        }
        return threads
    }

    /// `threads` with user-data sources fed by merges (see `inserting`).
    static func addingDataMerges(to threads: [[Op]], seed: UInt64, queues: [Queue], api: API) -> [[Op]] {
        let eligible = queues.filter { !$0.main }.map(\.index)
        return inserting(into: threads, seed: seed, salt: 0x4D45_5247_4553, percent: 25, api: api) { random in
            let kind = DataKind.allCases[random.below(DataKind.allCases.count)]
            let merges = random.within(1...40)
            // Replace sources keep the last value merged: only one merger keeps an order.
            let from: Int? = kind != .replace && random.percent(60) ? eligible[random.below(eligible.count)] : nil
            return Op.dataMerges(queue: eligible[random.below(eligible.count)], kind: kind, merges: merges, from: from,
                                 replaceHandlerAfter: random.percent(50) ? random.below(merges + 1) : nil)
        }
    }
}

extension Runner {
    /// A user-data source on `q` (`Program.Op.dataMerges`) fed `merges` values, by the
    /// plain thread or by that many blocks of `from` at once, its event handler replaced by
    /// a second one after `replaceHandlerAfter` merges. However merges coalesce, the events
    /// together must see what was merged (an add source: the sum, exactly; an or source:
    /// every bit; a replace source: the last value, last), each event non-empty; once the
    /// second handler ran the first never runs again; then a cancel handler runs once,
    /// after every event handler, and on a serial queue before a `sync` made after
    /// `cancel()`.
    func dataMerges(_ q: Int, kind: Program.DataKind, merges: Int, from: Int?, replaceHandlerAfter: Int?,
                    from submitter: Submitter) {
        let what = "a \(kind) data source on q\(q)"
        let values: [UInt] = switch kind {
        case .add: (1...merges).map { UInt($0) }
        case .or: (1...merges).map { 1 << UInt($0 % 24) }
        case .replace: (1...merges).map { UInt($0) }
        }
        let record = DataRecord(kind: kind, values: values)
        let reached = makeSemaphore(0)
        let source: any DispatchSourceProtocol = switch kind {
        case .add: DispatchSource.makeUserDataAddSource(queue: queues[q])
        case .or: DispatchSource.makeUserDataOrSource(queue: queues[q])
        case .replace: DispatchSource.makeUserDataReplaceSource(queue: queues[q])
        }
        // The handlers read the source one at a time; merging is thread-safe in both libraries.
        let box = UncheckedBox(source)
        func handler(_ generation: Int) -> @Sendable () -> Void {
            { [self] in
                let data = box.value.data
                enterBlock(q, what: "\(what): event handler \(generation)")
                if record.event(data, generation: generation, checker, what: what) { reached.signal() }
                checker.leave(q, barrier: false)
            }
        }
        source.setEventHandler(handler: handler(0))
        checker.expect()
        source.setCancelHandler(handler: checkedHandler(q, what: "\(what): cancel handler", { [checker] in record.cancelled(checker, what: what) },
                                                        after: { [checker] in checker.done() }))
        source.activate()
        // Both libraries' source class conforms to all three protocols: cast by the kind.
        let merge: @Sendable (UInt) -> Void = { value in
            switch kind {
            case .add: (box.value as! any DispatchSourceUserDataAdd).add(data: value)
            case .or: (box.value as! any DispatchSourceUserDataOr).or(data: value)
            case .replace: (box.value as! any DispatchSourceUserDataReplace).replace(data: value)
            }
        }
        for (index, value) in values.enumerated() {
            if index == replaceHandlerAfter { source.setEventHandler(handler: handler(1)) }
            if let from {
                let order = submitter.order(from, in: program)
                checker.expect()
                queues[from].async { [self] in
                    runBlock(from, barrier: false, what: "a merge into \(what)", order: order) { _ in merge(value) }
                }
            } else {
                merge(value)
            }
        }
        if replaceHandlerAfter == values.count { source.setEventHandler(handler: handler(1)) }
        if !reached.wait(Int(liveness * 1e6)) {
            checker.fail("\(what): the events did not see all \(merges) merges within \(liveness) s: \(record.summary)")
        }
        source.cancel()
        // On a serial queue, a user-data source's cancellation is ordered with the queue's
        // blocks: its cancel handler runs before a `sync` made after `cancel()` (both
        // libraries; Conveyor queued the delivery again after each handler until 4afdd9f).
        let spec = program.queues[q]
        if spec.serial && !spec.global && !spec.main {
            queues[q].sync {
                if !record.hasCancelled { checker.fail("\(what): the cancel handler had not run by a sync on q\(q) after cancel()") }
            }
        }
        reached.release()
    }
}

/// What a `dataMerges` source's events saw.
final class DataRecord: @unchecked Sendable {
    private struct State {
        var sum: UInt = 0
        var bits: UInt = 0
        var last: UInt = 0
        var events = 0
        var secondHandlerRan = false
        var reached = false
        var cancelled = false
    }
    let kind: Program.DataKind
    private let expected: UInt
    private let state = Locked(State())

    init(kind: Program.DataKind, values: [UInt]) {
        self.kind = kind
        expected = switch kind {
        case .add: values.reduce(0, +)
        case .or: values.reduce(0, |)
        case .replace: values.last ?? 0
        }
    }

    var summary: String { state.withLock { "\($0.events) events, sum \($0.sum), bits \($0.bits), last \($0.last), expected \(expected)" } }

    /// An event of handler `generation` saw `data`: true the first time the events have
    /// seen every merge.
    func event(_ data: UInt, generation: Int, _ checker: Checker, what: String) -> Bool {
        state.withLock { state in
            state.events += 1
            if state.cancelled { checker.fail("\(what): an event handler ran after the cancel handler") }
            if generation == 1 { state.secondHandlerRan = true }
            if generation == 0 && state.secondHandlerRan { checker.fail("\(what): the replaced event handler ran after its replacement") }
            if data == 0 { checker.fail("\(what): an event with no data") }
            if kind == .replace && data < state.last { checker.fail("\(what): an event saw \(data) after one saw \(state.last), merged later") }
            state.sum &+= data
            state.bits |= data
            state.last = data
            let seenAll = switch kind {
            case .add: state.sum == expected
            case .or: state.bits == expected
            case .replace: state.last == expected
            }
            if kind == .add && state.sum > expected { checker.fail("\(what): the events added up to \(state.sum), more than the \(expected) merged") }
            if kind == .or && state.bits & ~expected != 0 { checker.fail("\(what): an event saw bits \(data) never merged") }
            if kind == .replace && state.reached && data != expected {
                checker.fail("\(what): an event saw \(data) after the last value merged, \(expected), was seen")
            }
            guard seenAll && !state.reached else { return false }
            state.reached = true
            return true
        }
    }

    /// Whether the cancel handler ran.
    var hasCancelled: Bool { state.withLock { $0.cancelled } }

    func cancelled(_ checker: Checker, what: String) {
        state.withLock { state in
            if state.cancelled { checker.fail("\(what): the cancel handler ran twice") }
            state.cancelled = true
            if !state.reached { checker.fail("\(what): cancelled before the events saw every merge") }
        }
    }
}
