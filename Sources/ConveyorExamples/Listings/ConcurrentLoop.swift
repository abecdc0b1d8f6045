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

// Listing 3-5, "Performing the iterations of a for loop concurrently":
//
//     dispatch_apply(count, queue, ^(size_t i) {
//        printf("%u\n",i);
//     });
//
// "If the work performed during each iteration is distinct from the work performed
// during all other iterations, and the order in which each successive loop finishes is
// unimportant, you can replace the loop with a call to the dispatch_apply [...]
// function." Swift spells `dispatch_apply` as `DispatchQueue.concurrentPerform`.

/// The work of one iteration: how many primes are below `limit` (trial division, so
/// that each iteration takes long enough for several threads to join the loop).
func primeCount(below limit: Int) -> Int {
    var count = 0
    var candidate = 2
    while candidate < limit {
        var divisor = 2
        var isPrime = true
        while divisor * divisor <= candidate {
            if candidate % divisor == 0 { isPrime = false; break }
            divisor += 1
        }
        if isPrime { count += 1 }
        candidate += 1
    }
    return count
}

/// Listing 3-5: replaces `for i in 0..<count` with `concurrentPerform`. Shows the order
/// the iterations finished in (not necessarily ascending), that the results equal the
/// plain loop's, and how many threads shared the loop.
public func concurrentLoop(_ transcript: Transcript) {
    transcript.say("Listing 3-5: loop iterations run concurrently")
    let count = 12
    let step = 2_000   // iteration i counts the primes below (i + 1) * step

    var expected = [Int]()
    for i in 0..<count {
        expected.append(primeCount(below: (i + 1) * step))
    }

    // What the iterations record is kept on a serial queue (the chapter's way to share
    // state between concurrent tasks).
    final class Record: @unchecked Sendable {
        let queue = DispatchQueue(label: "com.example.loop-record")
        var results: [Int]
        var finished: [Int] = []
        var threads = Set<UInt>()
        init(count: Int) { results = Array(repeating: -1, count: count) }
    }
    let record = Record(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { i in
        let primes = primeCount(below: (i + 1) * step)
        let thread = UInt(pthread_self())
        record.queue.sync {
            record.results[i] = primes
            record.finished.append(i)
            record.threads.insert(thread)
        }
    }

    let (order, threadCount, results) = record.queue.sync { (record.finished, record.threads.count, record.results) }
    transcript.say("  iterations finished in this order: \(order.map(String.init).joined(separator: " "))")
    transcript.say("  they ran on \(threadCount) thread(s)")
    transcript.check(order.sorted() == Array(0..<count), "each index 0..<\(count) ran exactly once")
    transcript.check(results == expected,
                     "results equal the plain for loop's (primes below 2000, 4000, ...: \(expected.prefix(3).map(String.init).joined(separator: ", ")), ...)")
}
