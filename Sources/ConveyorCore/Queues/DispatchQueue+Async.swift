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

extension DispatchQueue {
    /// Submits a closure to run on this queue and returns at once.
    /// - Parameters:
    ///   - group: A group the work belongs to until it has run.
    ///   - qos: The quality of service for this work (default: the queue's).
    ///   - flags: `.barrier` makes the work run alone on a concurrent queue.
    ///   - work: The work.
    @preconcurrency public func async(
        group: DispatchGroup? = nil,
        qos: DispatchQoS = .unspecified,
        flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable () -> Void
    ) {
        group?.enter()
        enqueue(ClosureJob.make(for: self, qos: qos, flags: flags, group: group, body: work))
    }

    /// Submits a work item to run on this queue and returns at once.
    public func async(execute workItem: DispatchWorkItem) {
        enqueue(WorkItemJob(item: workItem, band: workItem.band ?? band, group: nil))
    }

    /// Submits a work item that belongs to `group` until it has run.
    public func async(group: DispatchGroup, execute workItem: DispatchWorkItem) {
        group.enter()
        enqueue(WorkItemJob(item: workItem, band: workItem.band ?? band, group: group))
    }
}

/// A work item submitted to a queue.
final class WorkItemJob: Job, @unchecked Sendable {
    private var item: DispatchWorkItem?
    private var group: DispatchGroup?

    init(item: DispatchWorkItem, band: QoSBand, group: DispatchGroup?) {
        self.item = item
        self.group = group
        super.init(band: band, isBarrier: item.flags.contains(.barrier))
    }

    /// The job drops its item (and so, if the program kept no reference, the item's
    /// block and what it captured) before leaving the group: see `ClosureJob.run`.
    override func run(on queue: DispatchQueue?) {
        let group = self.group
        self.group = nil
        performAndDropItem()
        group?.leave()
    }

    @inline(never)
    private func performAndDropItem() {
        let item = self.item.take()
        item?.perform()
    }
}
