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

/// A C function and its context, submitted with `dispatch_async_f` and its kin (the C
/// API in `CAPI/`), with the group it belongs to, if any. It is the runtime's unit of
/// work in its plainest form: no closure context, so a recycled job is the only memory a
/// submission touches. Finished jobs are recycled through `JobCache`; make them with
/// `FunctionJob.make`.
final class FunctionJob: RecycledJob, @unchecked Sendable {
    /// A C `dispatch_function_t`.
    typealias Function = @convention(c) (UnsafeMutableRawPointer?) -> Void

    // Written by the submitting thread before the job is published, read by the thread
    // that runs it after taking it from a list (the list's release/acquire orders them):
    // never two accesses at once, so no run-time exclusivity checks.
    @exclusivity(unchecked) var function: Function
    @exclusivity(unchecked) var context: UnsafeMutableRawPointer?

    private init(band: QoSBand, isBarrier: Bool, group: DispatchGroup?,
                 function: @escaping Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
        super.init(band: band, isBarrier: isBarrier, isFunctionJob: true, group: group)
    }

    /// A job for `function(context)`: a recycled one when the thread's cache has one.
    @inline(__always)
    static func make(band: QoSBand, isBarrier: Bool, group: DispatchGroup?,
                     function: @escaping Function, context: UnsafeMutableRawPointer?) -> FunctionJob {
        if let job = JobCache.withCurrent({ $0.takeFunctionJob() }) {
            job.band = band
            job.isBarrier = isBarrier
            job.isOvercommit = false   // the last use may have come from an overcommitting queue
            job.group = group.map(Unmanaged.passUnretained)
            job.function = function
            job.context = context
            return job
        }
        return FunctionJob(band: band, isBarrier: isBarrier, group: group, function: function, context: context)
    }

    /// Calls the function. Writes nothing in the job: the fields keep their values until
    /// reuse overwrites them (`make`); the function and context own nothing.
    override func perform() {
        function(context)
    }
}
