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

import CBenchSupport

/// What the process's memory costs: allocation calls and bytes requested (counted), and RSS.
///
/// Counting works because `CBenchSupport` defines `malloc` and its siblings in the
/// executable, which the dynamic linker then uses for every library in the process; the
/// count therefore covers all threads (the dispatch library's workers included).
public enum Heap {
    /// Whether allocation calls from every library are being counted (see the type's note).
    public static var countingWorks: Bool { cbs_alloc_interposed() != 0 }

    /// Runs `body` and returns how many allocation calls all threads made meanwhile, and how
    /// many bytes they asked for (requested sizes, without malloc's own chunk overhead).
    public static func countAllocations<T>(
        _ body: () throws -> T
    ) rethrows -> (allocations: Int, bytes: Int, result: T) {
        cbs_alloc_counting_begin()
        let result: T
        do {
            result = try body()
        } catch {
            _ = cbs_alloc_counting_end()
            throw error
        }
        let allocations = Int(cbs_alloc_counting_end())
        return (allocations, Int(cbs_alloc_counted_bytes()), result)
    }

    /// Resident set size of the process in bytes (/proc/self/statm), or 0 if unreadable.
    public static func residentBytes() -> Int { Int(cbs_rss_bytes()) }
}
