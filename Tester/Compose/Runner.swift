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
@_spi(ConveyorTesting) import ConveyorCore
#else
import CComposeDispatch
import Dispatch
#endif
import Glibc
import Synchronization

/// Runs one generated program against the library this file was compiled with, and says
/// what the checker saw.
final class Runner: @unchecked Sendable {
    enum Outcome {
        case passed
        case failed([String])
        /// Nothing finished within the liveness bound: a report of every queue and thread.
        case hung(String)
    }

    let program: Program
    let checker: Checker
    let liveness: Double
    /// The pool's thread cap was lowered (`--thread-cap`): a busy poster then computes only
    /// until its opener ran (`busyPoster`).
    let capLowered: Bool
    /// The program's queues, made through the Swift API or the C API.
    private(set) var queues: [DispatchQueue] = []
    private(set) var cQueues: [UnsafeMutableRawPointer] = []
    /// The key of the queue-specific values (Swift API; the C API's is the shim's): one
    /// for the process, as a key's address could be reused by the next program's.
    private static let specificKey = DispatchSpecificKey<Int>()

    init(program: Program, livenessSeconds: Double, capLowered: Bool) {
        self.program = program
        checker = Checker(program: program)
        liveness = livenessSeconds
        self.capLowered = capLowered
    }

    /// The submitting context of one plain thread or one run of a block: numbers its
    /// submissions to each serial queue, for the FIFO check.
    final class Submitter: @unchecked Sendable {
        let id: Int
        private var numbers: [Int: Int] = [:]
        init(_ checker: Checker) { id = checker.newContext() }

        /// The next submission to `queue`: checked for FIFO when the queue is serial.
        func order(_ queue: Int, in program: Program) -> Checker.Order? {
            number(queue, fifo: program.queues[queue].serial)
        }

        /// The next submission to `queue` that keeps no order with the others (`asyncAfter`).
        func unordered(_ queue: Int) -> Checker.Order? { number(queue, fifo: false) }

        private func number(_ queue: Int, fifo: Bool) -> Checker.Order {
            let number = numbers[queue, default: 0]
            numbers[queue] = number + 1
            return Checker.Order(context: id, number: number, fifo: fifo)
        }
    }

    func run() -> Outcome {
        makeQueues()
        var threads: [pthread_t] = []
        let finishedThreads = Atomic<Int>(0)
        let activations = program.queues.filter(\.inactive).map(\.index)
        if !activations.isEmpty {
            var random = SeededRandom(seed: program.seed ^ 0xAC71_7A7E)
            let delays = activations.map { _ in random.below(1_000) }
            threads.append(startThread { [self] in
                for (queue, delay) in zip(activations, delays) {
                    var pause = timespec(tv_sec: 0, tv_nsec: delay * 1_000)
                    nanosleep(&pause, nil)
                    checker.markActivated(queue)
                    if program.api == .c { compose_c_activate(cQueues[queue]) } else { queues[queue].activate() }
                }
                finishedThreads.wrappingAdd(1, ordering: .sequentiallyConsistent)
            })
        }
        for ops in program.threads {
            threads.append(startThread { [self] in
                let submitter = Submitter(checker)
                for op in ops { perform(op, from: submitter, onPlainThread: true) }
                finishedThreads.wrappingAdd(1, ordering: .sequentiallyConsistent)
            })
        }
        let end = monotonicNanoseconds() + Int(liveness * 1e9)
        while finishedThreads.load(ordering: .sequentiallyConsistent) < threads.count
            || checker.outstanding.load(ordering: .sequentiallyConsistent) > 0 {
            if monotonicNanoseconds() > end { return .hung(hangReport(threadsLeft: threads.count - finishedThreads.load(ordering: .relaxed))) }
            var pause = timespec(tv_sec: 0, tv_nsec: 50_000)
            nanosleep(&pause, nil)
        }
        for thread in threads { pthread_join(thread, nil) }
        if checker.outstanding.load(ordering: .sequentiallyConsistent) < 0 {
            checker.fail("more blocks finished than were submitted")
        }
        for queue in program.queues.indices {
            let description = checker.occupancyDescription(queue)
            if !description.hasPrefix("0 running") { checker.fail("q\(queue) still shows \(description) after the program") }
        }
        for (queue, spec) in zip(cQueues, program.queues) where !spec.global { compose_c_release(queue) }
        let violations = checker.violations
        return violations.isEmpty ? .passed : .failed(violations)
    }

    /// The QoS a program's class index names (0 background … 3 user-initiated, 4
    /// user-interactive), in the order of the C shim's class indices.
    static func qos(_ index: Int) -> DispatchQoS {
        [.background, .utility, .default, .userInitiated, .userInteractive][index]
    }

    private func makeQueues() {
        defer { setSpecificValues() }
        for spec in program.queues {
            let label = "compose.q\(spec.index)"
            if spec.main {
                queues.append(DispatchQueue.main)
            } else if spec.global {
                if program.api == .c { cQueues.append(compose_c_global(Int32(spec.qos))!) }
                else { queues.append(DispatchQueue.global(qos: Runner.qos(spec.qos).qosClass)) }
            } else if program.api == .c {
                let target = spec.target.map { cQueues[$0] }
                // One C queue in three that target a global queue targets the overcommitting
                // one (bit 2 of the shim's `qos`), chosen from the program's shape so that
                // seeds still make the programs they made.
                let qos = Int32(spec.qos) | (spec.index % 3 == 1 ? 4 : 0)
                if spec.inactive && spec.index % 2 == 0 {
                    // As in the Swift API: the target set while inactive.
                    let queue = compose_c_queue_create(label, spec.serial ? 0 : 1, 1, nil, 2)!
                    compose_c_set_target(queue, target ?? compose_c_global(qos))
                    cQueues.append(queue)
                } else {
                    cQueues.append(compose_c_queue_create(label, spec.serial ? 0 : 1, spec.inactive ? 1 : 0, target, qos)!)
                }
                if let width = spec.width { compose_c_set_width(cQueues[spec.index], width) }
            } else {
                var attributes: DispatchQueue.Attributes = []
                if !spec.serial { attributes.insert(.concurrent) }
                if spec.inactive { attributes.insert(.initiallyInactive) }
                let target = spec.target.map { queues[$0] } ?? DispatchQueue.global(qos: Runner.qos(spec.qos).qosClass)
                #if CONVEYOR
                // Serial queues that start active are DispatchSerialQueue, so actors can run on them.
                if spec.serial && !spec.inactive {
                    queues.append(DispatchSerialQueue(label: label, target: target))
                    continue
                }
                #endif
                // Half the inactive queues get their target while inactive, with `setTarget`
                // (chosen from the program's shape: seeds keep their programs).
                if spec.inactive && spec.index % 2 == 0 {
                    let queue = DispatchQueue(label: label, attributes: attributes)
                    queue.setTarget(queue: target)
                    queues.append(queue)
                    continue
                }
                queues.append(DispatchQueue(label: label, attributes: attributes, target: target))
            }
        }
    }

    /// Sets the values of the queues that hold one; on the main queue, which outlives the
    /// program, clears an earlier program's.
    private func setSpecificValues() {
        for spec in program.queues where spec.specific || spec.main {
            if program.api == .c { compose_c_set_specific(cQueues[spec.index], spec.index) }
            else { queues[spec.index].setSpecific(key: Runner.specificKey, value: spec.specific ? spec.index : nil) }
        }
    }

    /// Fails unless the current queue-specific value is that of the nearest queue in
    /// `queue`'s chain holding one (what a block of `queue`, or its handler, must see; a
    /// queue of its own targeting `queue` and holding none sees the same).
    private func checkSpecific(_ queue: Int, what: String) {
        let seen: Int?
        if program.api == .c {
            let value = compose_c_get_specific()
            seen = value < 0 ? nil : value
        } else {
            seen = DispatchQueue.getSpecific(key: Runner.specificKey)
        }
        let expected = program.specificValue(seenFrom: queue)
        if seen != expected {
            checker.fail("\(what) on q\(queue) read the specific value of \(seen.map { "q\($0)" } ?? "no queue"), not of \(expected.map { "q\($0)" } ?? "no queue")")
        }
    }

    /// Enters `queue` for the checker and checks the queue-specific value and which queues
    /// the block is on there: the start of every block and handler of the program's queues.
    func enterBlock(_ queue: Int, barrier: Bool = false, what: String, order: Checker.Order? = nil) {
        checker.enter(queue, barrier: barrier, what: what, order: order)
        checkSpecific(queue, what: what)
        checkPreconditions(queue, exclusive: barrier || program.queues[queue].serial)
    }

    /// `suspend` and `resume` of the program's queue `q`, through the program's API.
    func suspend(_ q: Int) { if program.api == .c { compose_c_suspend(cQueues[q]) } else { queues[q].suspend() } }
    func resume(_ q: Int) { if program.api == .c { compose_c_resume(cQueues[q]) } else { queues[q].resume() } }

    /// A plain `async` of `body` to the program's queue `q`, through the program's API.
    func async(_ q: Int, _ body: @escaping @Sendable () -> Void) {
        if program.api == .c { compose_c_async(cQueues[q], 0, context(body), runContext) } else { queues[q].async(execute: body) }
    }

    /// Runs a block's checked part: `enter`, the body, `leave`, and counts it done.
    func runBlock(_ queue: Int, barrier: Bool, what: String, order: Checker.Order?,
                  window: SuspendWindow? = nil, body: (Submitter) -> Void) {
        enterBlock(queue, barrier: barrier, what: what, order: order)
        if let window, window.resumed.load(ordering: .sequentiallyConsistent) == 0 {
            checker.fail("\(what) started on q\(queue) while the queue was suspended")
        }
        let blocks = BlocksOnThisThread.current
        blocks.push(.init(queue: queue, exclusive: barrier || program.queues[queue].serial))
        let outer = RunningBlocks.enter(what, queue: queue)
        body(Submitter(checker))
        RunningBlocks.leave(restoring: outer)
        blocks.pop()
        checker.leave(queue, barrier: barrier)
        checker.done()
    }

    /// A handler (a source's, an I/O operation's, a channel's cleanup) checked as a block
    /// of `q`: `enterBlock`, `body`, leave, then `after` (once the checker has seen it
    /// leave), each given the handler's arguments.
    func checkedHandler<each Argument>(_ q: Int, what: String, _ body: @escaping @Sendable (repeat each Argument) -> Void,
                                       after: @escaping @Sendable (repeat each Argument) -> Void) -> @Sendable (repeat each Argument) -> Void {
        { [self] (argument: repeat each Argument) in
            enterBlock(q, what: what)
            body(repeat each argument)
            checker.leave(q, barrier: false)
            after(repeat each argument)
        }
    }

    func perform(_ ops: [Program.Op], from submitter: Submitter) {
        for op in ops { perform(op, from: submitter, onPlainThread: false) }
    }

    func perform(_ op: Program.Op, from submitter: Submitter, onPlainThread: Bool) {
        if program.api == .c { performC(op, from: submitter) } else { performSwift(op, from: submitter) }
    }

    private func hangReport(threadsLeft: Int) -> String {
        var lines = ["no progress within \(liveness) s: \(checker.outstanding.load(ordering: .relaxed)) blocks outstanding, \(threadsLeft) plain threads not done",
                     program.description, "queues (started/finished blocks, occupancy now):"]
        for (index, counts) in checker.queueCounts().enumerated() {
            lines.append("  q\(index): \(counts.started)/\(counts.finished), \(checker.occupancyDescription(index))")
        }
        lines.append("threads (name, state, nice, kernel wait channel):")
        lines.append(contentsOf: threadStates().map { "  " + $0 })
        lines.append("checked blocks running (thread id: block):")
        lines.append(contentsOf: RunningBlocks.description.map { "  " + $0 })
        #if CONVEYOR
        lines.append(PoolTestingHooks.stateDescription)
        #endif
        lines.append(contentsOf: checker.violations.map { "violation: " + $0 })
        return lines.joined(separator: "\n")
    }
}

/// Starts a plain thread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let result = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
    return thread
}

func monotonicNanoseconds() -> Int { nanoseconds(on: CLOCK_MONOTONIC) }

/// A reading of `clock` in nanoseconds.
func nanoseconds(on clock: clockid_t) -> Int {
    var now = timespec()
    clock_gettime(clock, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// Every thread of this process: name, scheduler state and what it waits in.
func threadStates() -> [String] {
    guard let directory = opendir("/proc/self/task") else { return ["(no /proc/self/task)"] }
    defer { closedir(directory) }
    var lines: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard name.first?.isNumber == true else { continue }
        let stat = readSmallFile("/proc/self/task/\(name)/stat")
        // "tid (comm) S ...": the state follows the last ')', the nice value is 16 fields on.
        let fields = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ") } ?? []
        let state = fields.first.map(String.init) ?? "?"
        let nice = fields.count > 16 ? String(fields[16]) : "?"
        let comm = readSmallFile("/proc/self/task/\(name)/comm").split(separator: "\n").first.map(String.init) ?? "?"
        let wchan = readSmallFile("/proc/self/task/\(name)/wchan")
        lines.append("\(name) \(comm) \(state) \(nice) \(wchan)")
    }
    return lines.sorted()
}

private func readSmallFile(_ path: String) -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = read(descriptor, &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
}
