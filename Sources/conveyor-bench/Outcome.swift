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

import BenchCore

/// What one run of one workload against one library produced, wherever it ran.
struct Outcome: Sendable {
    /// One value per metric (or the allocation count, in a counting run); empty otherwise.
    var values: [Double] = []
    /// Why the run produced no numbers because its check failed (or the child died).
    var failure: String?
    /// Set when the run gave up after this many seconds.
    var timedOut: Double?
    /// How far a run that gave up had got.
    var detail: String?
    /// Process CPU nanoseconds per operation over the measured region, when it had one.
    var cpuPerOperation: Double?

    /// Runs `workload` here, in this process, and catches what it throws.
    static func runHere(_ workload: Workload, _ context: RunContext) -> Outcome {
        do {
            var outcome = Outcome(values: try workload.body(context))
            if !context.countingAllocations { outcome.cpuPerOperation = CPUPerOperation.last }
            return outcome
        } catch let error as WorkloadError {
            switch error {
            case .invalid(let message): return Outcome(failure: message)
            case .timedOut(let seconds, let how): return Outcome(timedOut: seconds, detail: how)
            }
        } catch {
            return Outcome(failure: "\(error)")
        }
    }

    // MARK: the line a child process prints

    /// Starts the one line of standard output that carries a child's outcome.
    static let linePrefix = "conveyor-bench-result"

    /// The outcome as one line: `<prefix> ok v1 v2 … [cpu=C]`, `<prefix> failed <message>` or
    /// `<prefix> timedout <seconds> <detail>`.
    var line: String {
        func oneLine(_ text: String) -> String {
            String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        }
        if let failure { return "\(Outcome.linePrefix) failed \(oneLine(failure))" }
        if let timedOut { return "\(Outcome.linePrefix) timedout \(timedOut) \(oneLine(detail ?? ""))" }
        let cpu = cpuPerOperation.map { " cpu=\($0)" } ?? ""
        return "\(Outcome.linePrefix) ok " + values.map { "\($0)" }.joined(separator: " ") + cpu
    }

    /// Reads the outcome from a child's standard output (the last line with the prefix).
    init?(childOutput: String) {
        guard let line = childOutput.split(separator: "\n").last(where: { $0.hasPrefix(Outcome.linePrefix + " ") })
        else { return nil }
        let rest = line.dropFirst(Outcome.linePrefix.count + 1)
        let words = rest.split(separator: " ", maxSplits: 1)
        guard let kind = words.first else { return nil }
        let tail = words.count > 1 ? String(words[1]) : ""
        switch kind {
        case "ok":
            var words = tail.split(separator: " ")
            var cpu: Double?
            if let last = words.last, last.hasPrefix("cpu=") {
                cpu = Double(last.dropFirst(4))
                words.removeLast()
            }
            let numbers = words.map { Double($0) }
            guard numbers.allSatisfy({ $0 != nil }) else { return nil }
            self.init(values: numbers.map { $0! })
            cpuPerOperation = cpu
        case "failed":
            self.init(failure: tail)
        case "timedout":
            let parts = tail.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let seconds = Double(first) else { return nil }
            self.init(timedOut: seconds, detail: parts.count > 1 ? String(parts[1]) : "")
        default:
            return nil
        }
    }

    /// An outcome built from its parts (all optional).
    init(values: [Double] = [], failure: String? = nil, timedOut: Double? = nil, detail: String? = nil) {
        self.values = values
        self.failure = failure
        self.timedOut = timedOut
        self.detail = detail
    }
}
