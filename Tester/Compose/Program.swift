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

/// A generated dispatch program: queues in trees, and the operations several plain
/// threads perform on them, with nested operations inside the blocks they submit.
///
/// The generator keeps every program free of deadlocks that GCD itself would have (a
/// program that deadlocks on libdispatch too tests nothing): `sync` goes only to a queue
/// tree of a higher rank than every tree the caller is inside (so no two callers can wait
/// on each other), and only plain threads block in `wait`.
struct Program: Sendable {
    /// Which API the program's queues, groups and timers are made and used through.
    enum API: String, Sendable { case swift, c }

    struct Queue: Sendable {
        let index: Int
        let serial: Bool
        /// An earlier queue of the program, or nil for a global queue of QoS `qos`.
        let target: Int?
        let qos: Int
        /// Made inactive; a separate plain thread activates it after a short delay.
        let inactive: Bool
        /// Index of the top-most queue of its tree: `sync` goes only to higher trees.
        let tree: Int
        /// A global queue of QoS `qos` (the program's global queues follow its own).
        var global = false
        /// A C-API concurrent queue's fixed width (`dispatch_queue_set_width`), or nil.
        var width: Int? = nil
        /// The main queue (Swift API programs, last in `queues`): the tester's main thread
        /// serves it (`dispatchMain()`); only `mainQueue` operations use it.
        var main = false
        /// Holds a queue-specific value (its index) under the program's key: every block
        /// must read the value of the nearest queue in its chain that holds one.
        var specific = false
    }

    /// A QoS class given with one submission (0 background ... 3 user-initiated, 4
    /// user-interactive) and the flag that says how it meets the queue's.
    struct SubmitQoS: Sendable {
        enum Flag: Int, Sendable, CaseIterable { case none, enforce, inherit, detached }
        let qos: Int
        let flag: Flag
    }

    indirect enum Op: Sendable {
        /// With a QoS of its own when `qos` is set (`async(qos:flags:)`, or in C a block
        /// object made by `dispatch_block_create_with_qos_class`).
        case async(queue: Int, barrier: Bool, body: [Op], qos: SubmitQoS? = nil)
        case sync(queue: Int, barrier: Bool, body: [Op])
        case after(queue: Int, microseconds: Int, body: [Op])
        /// `members` blocks to `queue` in a new group; a notify on `notify`; `wait` (plain threads only).
        case fanOut(queue: Int, members: Int, notify: Int?, wait: Bool)
        /// One group used for waves of `waves[i]` members to `queue` (by enter, a block and
        /// leave when `manual`), a notify on `notify` after each wave, and a wait between
        /// waves when `waitBetween` (plain threads only; Groups.swift).
        case groupWaves(queue: Int, waves: [Int], notify: Int, manual: Bool, waitBetween: Bool)
        /// A work item (a `DispatchWorkItem`, or in C a block object made by
        /// `dispatch_block_create`; WorkItems.swift): cancelled before it is submitted when `cancel`.
        case workItem(queue: Int, barrier: Bool, cancel: Bool, notify: Int?, wait: Bool)
        /// `concurrentPerform`; every `submitEvery`-th iteration submits a block to `queue`.
        case perform(iterations: Int, queue: Int?, submitEvery: Int)
        /// `dispatch_apply` (C API) on concurrent queue `queue` the program made: the
        /// iterations run on it, as blocks of it, and the caller waits as a `sync` caller does.
        case applyOn(queue: Int, iterations: Int)
        /// A repeating timer that cancels itself after `ticks` events.
        case timer(queue: Int, microseconds: Int, ticks: Int)
        /// A read source on `queue` watching a pipe the caller writes `chunks` chunks of
        /// `bytes` bytes into and closes (PipeSource.swift); suspended while the caller
        /// writes when `suspendSource`.
        case pipe(queue: Int, chunks: Int, bytes: Int, suspendSource: Bool)
        /// A write source on `queue` filling a 4 KiB pipe with `bytes` bytes that the caller
        /// reads (plain threads only; WriteSource.swift).
        case writeSource(queue: Int, bytes: Int)
        /// A stream channel (DispatchIO) reading a pipe, handlers on `queue`, with a high
        /// water mark when `highWater` is set; the caller writes `chunks` chunks of `bytes`
        /// bytes with write(2) or, when `writeQueue` is set, through a channel of its own with
        /// handlers on that queue; the reader keeps its channel and closes it at the end of
        /// the read when `keepChannel`, else gives it up at once (Channel.swift).
        case channel(queue: Int, chunks: Int, bytes: Int, highWater: Int?, writeQueue: Int?, keepChannel: Bool)
        /// A work item cancelled while it waits in suspended queue `queue` (plain threads
        /// only; CancelledWorkItem.swift), with a notify on `notify` and a `wait`.
        case cancelQueued(queue: Int, barrier: Bool, notify: Int?, wait: Bool)
        /// A repeating timer on `queue` starting after `microseconds`, suspended `pause` µs
        /// later, cancelled, and resumed after as long again (plain threads only;
        /// CancelledWhileSuspended.swift).
        case cancelSuspended(queue: Int, microseconds: Int, pause: Int)
        /// A task running a task group of `children` child tasks (Swift API, TaskGroup.swift),
        /// each resumed by a block of `queue`, sleeping `sleepMicroseconds` when set, and
        /// calling a default actor; cancelled by a block of `queue` `cancelAfter` µs after it
        /// starts when set; the caller waits for it when `wait` (plain threads only).
        case taskGroup(queue: Int, children: Int, sleepMicroseconds: Int?, cancelAfter: Int?, wait: Bool)
        /// A timer on `queue` feeding an AsyncStream that a task reads (Swift API,
        /// SourceStream.swift): `ticks` values every `microseconds`; the reader stops after
        /// `consumerStops` values when set; the stream's termination cancels the timer.
        case sourceStream(queue: Int, ticks: Int, microseconds: Int, consumerStops: Int?)
        /// A task preferring `queue` as its executor (Swift API, ExecutorTask.swift): `steps`
        /// pieces of work between `Task.yield()`s, the first running `body`.
        case executorTask(queue: Int, steps: Int, body: [Op])
        /// A data-add source (Swift API) fed `merges` values, cancelled when all arrived.
        case dataSource(queue: Int, merges: Int)
        /// Suspends `queue`, submits `submissions` blocks, resumes it.
        case suspend(queue: Int, submissions: Int)
        /// A block signals a semaphore the plain thread waits for.
        case semaphore(queue: Int)
        /// An actor whose executor is serial queue `queue` (Conveyor's `DispatchSerialQueue`;
        /// the toolchain's Dispatch has no queue executors on Linux, so there the calls are
        /// plain blocks): `calls` awaited calls from one task, each running `body`.
        case actorCalls(queue: Int, calls: Int, body: [Op])
        /// A queue of its own (and, in C, a group) given up right after `blocks` were
        /// submitted to it; in C each block reads the queue's context, and one re-submits
        /// to it when `resubmit`; the finalizers must come after every block.
        case transient(serial: Bool, blocks: Int, resubmit: Bool, group: Bool)
        /// A crowd of `sync` callers (plain threads only): `members` blocks to `queue` in a
        /// new group, each a `sync` (a barrier when `barrier`) onto one new queue that
        /// nothing else uses; the plain thread waits for the group. With more members than
        /// the pool has threads, every worker waits in that `sync`: the new queue must
        /// reach its next waiter without a free worker (it needed one: found by the drop-in
        /// probe, not by this tester, which then had no crowd).
        case crowd(queue: Int, members: Int, serial: Bool, barrier: Bool)
        /// A busy poster (plain threads only): a block on a global queue posts a gate
        /// opener (to a new serial queue when `serial`, else to a global queue) and stays
        /// runnable until `members` blocks to `queue`, each waiting for the gate, are done.
        /// Posted first, the opener must not wait for a thread behind the crowd (it did on
        /// Conveyor, in the poster's LIFO slot or ring: found in CI, not by this tester).
        case busyPoster(queue: Int, members: Int, serial: Bool)
        /// Work for the main queue (Swift API): `Task { @MainActor in }` when `actor`, else
        /// `DispatchQueue.main.async`. Both are blocks of one serial queue, FIFO per
        /// submitting thread (MainActor jobs ran after every main-queue block under Swift
        /// 6.3 until Conveyor became the main executor: found by a review, not by this tester).
        case mainQueue(actor: Bool, body: [Op])
        /// A new serial queue retargeted while active (C API, plain threads only): onto
        /// `from`, `before` blocks, onto `to`, `after` blocks and a `sync` when `sync`
        /// (Retarget.swift). Idle, libdispatch moves it before the call returns (Conveyor
        /// held it behind a suspended old target: found by a review, not by this tester).
        case retarget(from: Int, to: Int, before: Int, after: Int, sync: Bool)
        /// Waits of `timeoutMicroseconds` at a time, most of which time out, for `members`
        /// blocks of `queue` spread over `spreadMicroseconds` (plain threads; TimedWaits.swift).
        case timedWaits(queue: Int, kind: TimedWait, members: Int, spreadMicroseconds: Int, timeoutMicroseconds: Int)
        /// A semaphore of `value` guarding `members` blocks of `queue` that wait for it
        /// (plain threads; TimedWaits.swift).
        case semaphoreLimit(queue: Int, value: Int, members: Int, timed: Bool)
        /// A user-data source on `queue` fed `merges` values by the plain thread or by
        /// blocks of `from`, its event handler replaced after `replaceHandlerAfter` merges
        /// (Swift API, plain threads; DataMerges.swift).
        case dataMerges(queue: Int, kind: DataKind, merges: Int, from: Int?, replaceHandlerAfter: Int?)
        /// Signal sources of one of `testSignals` on a queue, sent that signal by the
        /// thread or by blocks of another queue (Swift API, plain threads).
        case signals(queue: Int, signal: Int, sources: Int, rounds: Int, raiseFrom: Int?, suspendFirst: Bool)
        /// A repeating timer on a serial queue given a new schedule while it runs, from a
        /// block of the queue or its handler (Swift API, plain threads).
        case reschedule(queue: Int, firstMicroseconds: Int, ticksBefore: Int, secondMicroseconds: Int, ticksAfter: Int,
                        from: RescheduleFrom)
        /// A random-access DispatchIO channel on a temporary file: writes at their own
        /// offsets, reads of what they wrote, close (Swift API, plain threads).
        case fileChannel(queue: Int, writes: Int, chunk: Int, reads: Int, byPath: Bool, barrier: Bool, stopEarly: Bool)
        /// Process sources on a queue for the exit of a child process the thread starts
        /// and kills (Swift API, plain threads; Conveyor's build only: ProcessExit.swift).
        case processExit(queue: Int, sources: Int, exitFirst: Bool, suspendFirst: Bool, cancelFirst: Bool)
        /// `members` blocks to `queue` in a group, each posting one block to a queue of QoS
        /// `targetQoS` (`target`) and waiting for it (`kind`); the plain thread waits for the
        /// group (plain threads only; PostAndWait.swift).
        case postAndWait(queue: Int, members: Int, targetQoS: Int, target: PostTarget, kind: TimedWait)
    }

    let seed: UInt64
    let api: API
    let queues: [Queue]
    /// One list of operations per plain thread.
    let threads: [[Op]]

    /// The same program with only the plain threads at `indices` (for narrowing a failure).
    func keepingThreads(_ indices: [Int]) -> Program {
        Program(seed: seed, api: api, queues: queues, threads: indices.filter { threads.indices.contains($0) }.map { threads[$0] })
    }

    /// The value `getSpecific` must read in a block of `queue`: the index of the nearest
    /// queue in its chain that holds one.
    func specificValue(seenFrom queue: Int) -> Int? { chain(queue).first { queues[$0].specific } }

    /// The queue and its targets, innermost first.
    func chain(_ queue: Int) -> [Int] {
        var result = [queue]
        var next = queues[queue].target
        while let index = next { result.append(index); next = queues[index].target }
        return result
    }
}

extension Program {
    /// The program of `seed`.
    init(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        self.seed = seed
        api = random.percent(30) ? .c : .swift
        var queues: [Queue] = []
        for index in 0..<random.within(1...6) {
            let target: Int? = index > 0 && random.percent(45) ? random.below(index) : nil
            queues.append(Queue(
                index: index, serial: random.percent(60), target: target, qos: random.below(4),
                inactive: random.percent(12), tree: target.map { queues[$0].tree } ?? index))
        }
        for qos in 0..<4 where random.percent(40) || (qos == 2 && queues.count < 3) {
            queues.append(Queue(index: queues.count, serial: false, target: nil, qos: qos, inactive: false, tree: -1, global: true))
        }
        // Widths come from a stream of their own, so that seeds still make the programs
        // they made before queues had widths. Not on inactive queues: libdispatch then
        // crashes when the queue is released ("_dispatch_lane_dispose"; Conveyor does not).
        if api == .c {
            var widths = SeededRandom(seed: seed ^ 0x5749_4454_4853)
            for index in queues.indices
            where !queues[index].serial && !queues[index].global && !queues[index].inactive && widths.percent(40) {
                queues[index].width = widths.within(1...3)
            }
        }
        // Specific values come from a stream of their own (seeds keep their programs).
        // Not on global queues, which the whole process shares.
        var specifics = SeededRandom(seed: seed ^ 0x5350_4543_4946)
        for index in queues.indices where !queues[index].global && specifics.percent(50) {
            queues[index].specific = true
        }
        var generator = Generator(random: random, queues: queues, api: api)
        var threads = (0..<generator.random.within(1...3)).map { _ in
            (0..<generator.random.within(1...6)).map { _ in generator.op(depth: 0, plainThread: true, aboveTree: -1) }
        }
        // Pipes too (seeds keep their programs): written from the plain thread, or from a
        // block of one of the program's queues.
        var pipes = SeededRandom(seed: seed ^ 0x5049_5045_5321)
        for index in threads.indices where pipes.percent(35) {
            for _ in 0..<pipes.within(1...2) {
                let pipe = Op.pipe(queue: pipes.below(queues.count), chunks: pipes.within(1...16),
                                   bytes: pipes.within(1...1_024), suspendSource: pipes.percent(30))
                let op = pipes.percent(50) ? Op.async(queue: pipes.below(queues.count), barrier: false, body: [pipe]) : pipe
                threads[index].insert(op, at: pipes.below(threads[index].count + 1))
            }
        }
        // Channels too (seeds keep their programs), from the plain thread or a block.
        var channels = SeededRandom(seed: seed ^ 0x4348_414E_4E45)
        for index in threads.indices where channels.percent(30) {
            let channel = Op.channel(queue: channels.below(queues.count), chunks: channels.within(1...16),
                                     bytes: channels.within(1...1_024),
                                     highWater: channels.percent(40) ? channels.within(1...2_048) : nil,
                                     writeQueue: channels.percent(50) ? channels.below(queues.count) : nil,
                                     keepChannel: channels.percent(60))
            let op = channels.percent(50) ? Op.async(queue: channels.below(queues.count), barrier: false, body: [channel]) : channel
            threads[index].insert(op, at: channels.below(threads[index].count + 1))
        }
        // Timers cancelled while suspended too (seeds keep their programs).
        var suspendedCancels = SeededRandom(seed: seed ^ 0x5355_5343_414E)
        for index in threads.indices where suspendedCancels.percent(25) {
            let op = Op.cancelSuspended(queue: suspendedCancels.below(queues.count), microseconds: suspendedCancels.within(50...500),
                                        pause: suspendedCancels.below(1_000))
            threads[index].insert(op, at: suspendedCancels.below(threads[index].count + 1))
        }
        // Groups used again, from a stream of their own too.
        var reused = SeededRandom(seed: seed ^ 0x5741_5645_5321)
        for index in threads.indices where reused.percent(25) {
            let op = Op.groupWaves(queue: reused.below(queues.count), waves: (0..<reused.within(2...4)).map { _ in reused.below(9) },
                                   notify: reused.below(queues.count), manual: reused.percent(50), waitBetween: reused.percent(40))
            threads[index].insert(op, at: reused.below(threads[index].count + 1))
        }
        // Write sources too (seeds keep their programs).
        var writers = SeededRandom(seed: seed ^ 0x5752_4954_4553)
        for index in threads.indices where writers.percent(25) {
            let op = Op.writeSource(queue: writers.below(queues.count), bytes: writers.within(1...24_576))
            threads[index].insert(op, at: writers.below(threads[index].count + 1))
        }
        // Retargets come from a stream of their own too (seeds keep their programs).
        if api == .c {
            var moves = SeededRandom(seed: seed ^ 0x5245_5441_5247)
            for index in threads.indices where moves.percent(40) {
                let move = Op.retarget(from: moves.below(queues.count), to: moves.below(queues.count),
                                       before: moves.below(5), after: moves.within(1...4), sync: moves.percent(40))
                threads[index].insert(move, at: moves.below(threads[index].count + 1))
            }
        }
        // Block objects (`dispatch_block_create`), the C API's work items, from a stream of
        // their own too: submitted (some cancelled first, some from inside a block), or
        // cancelled while they wait in a suspended queue.
        if api == .c {
            var blocks = Generator(random: SeededRandom(seed: seed ^ 0x424C_4F43_4B53), queues: queues, api: api)
            for index in threads.indices where blocks.random.percent(35) {
                for _ in 0..<blocks.random.within(1...2) {
                    let q = blocks.queue()
                    let notify: Int? = blocks.random.percent(60) ? blocks.queue() : nil
                    var op = Op.workItem(queue: q, barrier: blocks.barrier(q), cancel: blocks.random.percent(25), notify: notify,
                                         wait: blocks.random.percent(50))
                    if blocks.random.percent(30), let made = blocks.madeQueue() {
                        op = .cancelQueued(queue: made, barrier: blocks.barrier(made), notify: notify, wait: blocks.random.percent(50))
                    } else if case let .workItem(q, barrier, cancel, notify, _) = op, blocks.random.percent(30) {
                        op = .async(queue: blocks.queue(), barrier: false,
                                    body: [.workItem(queue: q, barrier: barrier, cancel: cancel, notify: notify, wait: false)])
                    }
                    threads[index].insert(op, at: blocks.random.below(threads[index].count + 1))
                }
            }
        }
        // Main-queue work comes from a stream of its own and goes in between what the
        // threads already do, so that seeds still make the programs they made before (plus
        // this). Its blocks' bodies use only the program's own queues.
        if api == .swift {
            var mains = Generator(random: SeededRandom(seed: seed ^ 0x4D41_494E_5155), queues: queues, api: api)
            let mainIndex = queues.count
            for index in threads.indices where mains.random.percent(40) {
                for _ in 0..<mains.random.within(1...4) {
                    let body = mains.random.percent(50) ? mains.body(depth: 1, aboveTree: -1) : []
                    let position = mains.random.below(threads[index].count + 1)
                    threads[index].insert(.mainQueue(actor: mains.random.percent(50), body: body), at: position)
                }
            }
            // Tasks on the program's queues, from a stream of their own too.
            var tasks = Generator(random: SeededRandom(seed: seed ^ 0x5441_534B_5300), queues: queues, api: api)
            for index in threads.indices where tasks.random.percent(30) {
                for _ in 0..<tasks.random.within(1...2) {
                    let q = tasks.queue()
                    let op = Op.executorTask(queue: q, steps: tasks.random.within(1...4),
                                             body: tasks.body(depth: 1, aboveTree: tasks.treeInside(q)))
                    threads[index].insert(op, at: tasks.random.below(threads[index].count + 1))
                }
            }
            // Task groups resumed by blocks, from a stream of their own too: from the plain
            // thread (some waiting for them) or from a block.
            var groups = SeededRandom(seed: seed ^ 0x5447_524F_5550)
            for index in threads.indices where groups.percent(30) {
                for _ in 0..<groups.within(1...2) {
                    let inBlock = groups.percent(40)
                    let op = Op.taskGroup(queue: groups.below(queues.count), children: groups.within(1...12),
                                          sleepMicroseconds: groups.percent(40) ? groups.within(1...1_000) : nil,
                                          cancelAfter: groups.percent(30) ? groups.below(1_000) : nil,
                                          wait: !inBlock && groups.percent(50))
                    let placed = inBlock ? Op.async(queue: groups.below(queues.count), barrier: false, body: [op]) : op
                    threads[index].insert(placed, at: groups.below(threads[index].count + 1))
                }
            }
            // Timers feeding AsyncStreams, from a stream of their own too.
            var streams = SeededRandom(seed: seed ^ 0x5354_5245_414D)
            for index in threads.indices where streams.percent(25) {
                let ticks = streams.within(1...6)
                let op = Op.sourceStream(queue: streams.below(queues.count), ticks: ticks, microseconds: streams.within(50...500),
                                         consumerStops: streams.percent(40) ? streams.within(1...ticks + 1) : nil)
                threads[index].insert(op, at: streams.below(threads[index].count + 1))
            }
            // Work items cancelled in a suspended queue, from a stream of their own too.
            var cancels = Generator(random: SeededRandom(seed: seed ^ 0x4341_4E43_454C), queues: queues, api: api)
            for index in threads.indices where cancels.random.percent(25) {
                guard let q = cancels.madeQueue() else { break }
                let notify: Int? = cancels.random.percent(70) ? cancels.queue() : nil
                let op = Op.cancelQueued(queue: q, barrier: cancels.barrier(q), notify: notify, wait: cancels.random.percent(50))
                threads[index].insert(op, at: cancels.random.below(threads[index].count + 1))
            }
            queues.append(Queue(index: mainIndex, serial: true, target: nil, qos: 2, inactive: false, tree: -1, main: true,
                                specific: specifics.percent(50)))
        }
        // Some blocks carry a QoS of their own, from a stream of their own (seeds keep
        // their programs): FIFO and exclusion must hold whatever the QoS of each block.
        var classes = SeededRandom(seed: seed ^ 0x514F_5343_4C53)
        threads = threads.map { Program.givingQoS($0, &classes) }
        threads = Program.addingWaits(to: threads, seed: seed, queues: queues)
        threads = Program.addingDataMerges(to: threads, seed: seed, queues: queues, api: api)
        threads = Program.addingSignals(to: threads, seed: seed, queues: queues, api: api)
        threads = Program.addingReschedules(to: threads, seed: seed, queues: queues, api: api)
        threads = Program.addingFileChannels(to: threads, seed: seed, queues: queues, api: api)
        threads = Program.addingProcessExits(to: threads, seed: seed, queues: queues, api: api)
        threads = Program.addingPostAndWaits(to: threads, seed: seed, queues: queues)
        self.queues = queues
        self.threads = threads
    }

    /// `ops` with one `async` in four, at any depth, given a QoS and a flag.
    private static func givingQoS(_ ops: [Op], _ random: inout SeededRandom) -> [Op] {
        ops.map { op in
            switch op {
            case let .async(queue, barrier, body, _):
                let qos = random.percent(25)
                    ? SubmitQoS(qos: random.below(5), flag: SubmitQoS.Flag.allCases[random.below(SubmitQoS.Flag.allCases.count)])
                    : nil
                return .async(queue: queue, barrier: barrier, body: givingQoS(body, &random), qos: qos)
            case let .sync(queue, barrier, body): return .sync(queue: queue, barrier: barrier, body: givingQoS(body, &random))
            case let .after(queue, microseconds, body):
                return .after(queue: queue, microseconds: microseconds, body: givingQoS(body, &random))
            case let .executorTask(queue, steps, body): return .executorTask(queue: queue, steps: steps, body: givingQoS(body, &random))
            case let .actorCalls(queue, calls, body): return .actorCalls(queue: queue, calls: calls, body: givingQoS(body, &random))
            case let .mainQueue(actor, body): return .mainQueue(actor: actor, body: givingQoS(body, &random))
            default: return op
            }
        }
    }

    /// Makes one operation at a time; `aboveTree` is the highest tree the caller is inside.
    private struct Generator {
        var random: SeededRandom
        let queues: [Queue]
        let api: API

        mutating func queue() -> Int { random.below(queues.count) }

        /// A queue the program made (not a global queue), for suspension.
        mutating func madeQueue() -> Int? {
            let made = queues.filter { !$0.global }
            return made.isEmpty ? nil : made[random.below(made.count)].index
        }

        mutating func barrier(_ queue: Int) -> Bool { !queues[queue].serial && !queues[queue].global && random.percent(30) }

        /// The highest tree a block on `queue` is inside: none for a global queue.
        func treeInside(_ queue: Int) -> Int { queues[queue].global ? -1 : queues[queue].tree }

        mutating func body(depth: Int, aboveTree: Int) -> [Op] {
            guard depth < 2 else { return [] }
            return (0..<random.below(depth == 0 ? 4 : 2)).map { _ in op(depth: depth + 1, plainThread: false, aboveTree: aboveTree) }
        }

        mutating func op(depth: Int, plainThread: Bool, aboveTree: Int) -> Op {
            let q = queue()
            let tree = treeInside(q)
            switch random.below(100) {
            case 0..<26:
                return .async(queue: q, barrier: barrier(q), body: body(depth: depth, aboveTree: tree))
            case 26..<40:
                // Only to a higher tree (or a global queue): two callers never wait for each other.
                if queues[q].global { return .sync(queue: q, barrier: false, body: body(depth: depth, aboveTree: aboveTree)) }
                guard tree > aboveTree else { return .async(queue: q, barrier: barrier(q), body: []) }
                return .sync(queue: q, barrier: barrier(q), body: body(depth: depth, aboveTree: tree))
            case 40..<48:
                return .after(queue: q, microseconds: random.below(2_000), body: body(depth: depth + 1, aboveTree: tree))
            case 48..<51 where plainThread:
                let fans = queues.filter { $0.global || (!$0.serial && !$0.inactive) }
                let fan = fans.isEmpty ? q : fans[random.below(fans.count)].index
                if random.percent(30) { return .busyPoster(queue: fan, members: random.within(200...1000), serial: random.percent(50)) }
                let serial = random.percent(60)
                return .crowd(queue: fan, members: random.within(200...1000), serial: serial,
                              barrier: !serial && random.percent(50))
            case 48..<66:
                let notify: Int? = random.percent(85) ? queue() : nil
                // Half of them to a global queue, as the chapter's own pattern does.
                let globals = queues.filter(\.global)
                let members = !globals.isEmpty && random.percent(50) ? globals[random.below(globals.count)].index : q
                return .fanOut(queue: members, members: random.within(1...32), notify: notify,
                               wait: plainThread && (notify == nil || random.percent(40)))
            case 66..<74 where api == .swift:
                let notify: Int? = random.percent(60) ? queue() : nil
                return .workItem(queue: q, barrier: barrier(q), cancel: random.percent(25), notify: notify,
                                 wait: plainThread && random.percent(50))
            case 74..<80:
                let iterations = random.within(1...16)
                let submitTo: Int? = random.percent(60) ? q : nil
                let every = random.within(1...4)
                // Half of the C programs' applies whose queue may take a `sync` from here go
                // onto that queue instead, chosen from what was drawn (no draw of its own,
                // so seeds still make the programs they made before).
                if api == .c, submitTo != nil, !queues[q].serial, !queues[q].global, tree > aboveTree,
                   (iterations + every) % 2 == 0 {
                    return .applyOn(queue: q, iterations: iterations)
                }
                return .perform(iterations: iterations, queue: submitTo, submitEvery: every)
            case 80..<86:
                return .timer(queue: q, microseconds: random.within(100...2_000), ticks: random.within(1...4))
            case 86..<90 where api == .swift:
                return .dataSource(queue: q, merges: random.within(1...8))
            case 90..<94:
                guard let made = madeQueue() else { return .async(queue: q, barrier: false, body: []) }
                return .suspend(queue: made, submissions: random.within(1...4))
            case 94..<96 where plainThread:
                return .semaphore(queue: q)
            case 96..<98 where api == .swift:
                let eligible = queues.filter { $0.serial && !$0.global && !$0.inactive }
                guard !eligible.isEmpty else { return .async(queue: q, barrier: false, body: []) }
                let actorQueue = eligible[random.below(eligible.count)].index
                return .actorCalls(queue: actorQueue, calls: random.within(1...4),
                                   body: body(depth: depth + 1, aboveTree: queues[actorQueue].tree))
            case 96..<100:
                return .transient(serial: random.percent(50), blocks: random.within(1...8), resubmit: random.percent(50),
                                   group: random.percent(50))
            default:
                return .async(queue: q, barrier: false, body: [])
            }
        }
    }
}
