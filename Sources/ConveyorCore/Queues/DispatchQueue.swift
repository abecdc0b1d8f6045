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

import Synchronization

/// An object that manages the execution of tasks serially or concurrently on your app's
/// threads. Tasks start in the order they were added (first in, first out); a serial
/// queue runs one task at a time, a concurrent queue runs as many as the system allows.
/// Queues run concurrently with respect to each other.
public class DispatchQueue: DispatchObject, @unchecked Sendable {
    /// What the queue is, which decides how its work is drained.
    @usableFromInline
    enum Kind: Sendable {
        /// One task at a time, in order.
        case serial
        /// Many tasks at once; barriers run alone.
        case concurrent
        /// A global queue: work goes straight to the pool at one priority band.
        case root
        /// The main queue: a serial queue drained on the main thread.
        case main
    }

    /// Queue attributes: concurrency and initial activation state.
    public struct Attributes: OptionSet, Sendable {
        /// The raw bits.
        public let rawValue: UInt64
        /// Creates attributes from raw bits.
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        /// Tasks may run concurrently (a concurrent queue); without it the queue is serial.
        public static let concurrent = Attributes(rawValue: 1 << 1)
        /// The queue starts inactive: call `activate()` before its tasks can start.
        public static let initiallyInactive = Attributes(rawValue: 1 << 2)
    }

    /// How often an autorelease pool is drained around tasks. There are no autorelease
    /// pools on Linux, so every value behaves the same; kept for source compatibility.
    public enum AutoreleaseFrequency: Sendable {
        /// Inherit the behaviour of the target queue.
        case inherit
        /// An autorelease pool around each work item.
        case workItem
        /// Never set up an autorelease pool.
        case never
    }

    /// The older priority names for global queues, mapped to QoS classes.
    public enum GlobalQueuePriority: Sendable {
        /// The `.userInitiated` class.
        case high
        /// The `.default` class.
        case `default`
        /// The `.utility` class.
        case low
        /// The `.background` class.
        case background
    }

    // Stored properties are laid out in declaration order: the word-sized ones first, the
    // one-byte ones packed together after them, so an idle queue is one 157-byte object
    // (93 plus the 64 bytes that keep `items`' head and tail on separate cache lines;
    // `conveyor-bench --only memory-idle-queue`: 166 malloc bytes per queue, 161 before
    // the drain's ticket).

    /// The label given at creation (empty if none).
    public let label: String
    /// The queue whose drain runs this queue's drain (nil only for root queues and main),
    /// as the address of a reference this queue holds (0 for none), released in deinit.
    /// Atomic because a queue made by `dispatch_queue_create` is retargeted while active
    /// (`RetargetJob`) while other threads walk the chain without holding the queue
    /// (releasing stores pair with the acquiring load in `targetQueue`).
    @usableFromInline let targetWord: Atomic<UInt>
    /// The target (see `targetWord`).
    @usableFromInline final var targetQueue: DispatchQueue? {
        let word = targetWord.load(ordering: .acquiring)
        guard let address = UnsafeRawPointer(bitPattern: word) else { return nil }
        return Unmanaged<DispatchQueue>.fromOpaque(address).takeUnretainedValue()
    }
    /// Which scheduling of the drain may still be claimed: even and non-zero while a drain
    /// job of a root-targeted queue waits in the pool (the ticket it carries), odd once a
    /// job claimed it, 0 before the queue was first scheduled on a global queue
    /// (SyncOverride.swift: a `sync` caller of a more important band posts a second job
    /// for the same ticket, and the first to claim it drains). Beside `targetWord` and `state`, which the scheduling and the drain read
    /// anyway, not beside the list's tail, which producers exchange.
    let drainTicket = Atomic<UInt64>(0)
    // `state` comes before `items`: the drain reads it for every item, so it shares a
    // line with the list's head (the drain's side), not with its tail, which producers
    // exchange on every submission (see `JobList`'s layout).
    @usableFromInline let state: Atomic<UInt64>
    @usableFromInline let items = JobList()
    /// The job that stands for this queue on its target's list or in the pool; made the
    /// first time the queue is scheduled (`scheduleOnTarget`), so a queue only ever used
    /// with `sync` (a queue as a lock) never allocates one. Read and written only by the
    /// holder of the `enqueued` bit: the compare-and-swap that takes the bit acquires what
    /// the previous holder wrote before the swap that released it (QueueDrain.swift).
    @usableFromInline var drainJob: QueueDrainJob?
    @usableFromInline let kind: Kind
    @usableFromInline let band: QoSBand
    /// Whether this is one of the overcommitting global queues (`overcommitRoot(for:)`).
    @usableFromInline let isOvercommitRoot: Bool
    /// Whether `targetQueue` is a root queue (the common case, with the fast `sync` paths).
    /// Written while the queue is inactive (`retarget`); the `sync` fast paths read it
    /// after an acquiring load of `state` that saw the queue active, so they see the
    /// final value. A queue made by `dispatch_queue_create` is also retargeted while
    /// active, by a barrier that holds it (`RetargetJob`): the fast paths read the flag
    /// again once they hold the queue. An atomic (a relaxed load is a plain load) also
    /// keeps the runtime's exclusivity check out of every `sync`.
    @usableFromInline let rootTargeted: Atomic<Bool>
    /// `rootTargeted`'s value (relaxed: the readers order it by their acquiring `state`
    /// accesses, the writers by the releases that publish the queue or free it).
    @usableFromInline final var isRootTargeted: Bool { rootTargeted.load(ordering: .relaxed) }
    /// Whether values were ever attached with `setSpecific` (they are dropped in deinit).
    let hasSpecifics = Atomic<Bool>(false)
    /// The QoS given at creation, kept as its two parts (`DispatchQoS` would pad to 16 bytes).
    private let requestedQoSClass: DispatchQoS.QoSClass
    /// The most items of this concurrent queue that may run at once, `sync` callers
    /// included (`dispatch_queue_set_width`, `setWidthLimit`); 0: no limit, the default.
    /// Two bytes, in the padding of the one-byte fields: a queue is no larger.
    let widthLimit = Atomic<UInt16>(0)
    /// The `sync` callers waiting here at a more important band than the drain's
    /// (SyncOverride.swift): their count in the low 24 bits, the most important of their
    /// bands above them. While any waits, the drain is scheduled at that band. Four
    /// bytes in the padding after `widthLimit`.
    let syncOverride = Atomic<UInt32>(0)
    /// Whether the queue was made with a QoS of its own; without one it runs at the band
    /// of the global queue it targets (`scheduleOnTarget`).
    final var hasOwnQoS: Bool { requestedQoSClass != .unspecified }
    /// One byte (a relative priority is -15...0): with `syncOverride` the queue stays at
    /// its size but for `drainTicket`.
    private let requestedRelativePriority: Int8
    /// Whether the target is the default one (none given, or nil): for a serial queue,
    /// libdispatch's default is the overcommitting global queue of its QoS, so that is the
    /// global queue its work runs "on" for `dispatchPrecondition` and
    /// `dispatch_assert_queue` (`identityTarget`), though Conveyor schedules it as the
    /// plain one. Written and read as `rootTargeted`. Last of the stored properties: placed
    /// beside `rootTargeted`, it made an uncontended `sync` on an idle serial queue 16.8 ->
    /// 22.7 ns (serial-sync, 5 runs, three times each; the queue's size stayed 160 bytes).
    let defaultTargeted: Atomic<Bool>

    /// Creates a dispatch queue.
    /// - Parameters:
    ///   - label: A name for debugging (shown by tools and in trap messages).
    ///   - qos: The quality of service of the queue's work.
    ///   - attributes: `.concurrent` for a concurrent queue, `.initiallyInactive` to
    ///     create it inactive.
    ///   - autoreleaseFrequency: Accepted for compatibility; no effect on Linux.
    ///   - target: The queue that runs this queue's work; by default the global queue
    ///     of the queue's QoS.
    public init(
        label: String,
        qos: DispatchQoS = .unspecified,
        attributes: Attributes = [],
        autoreleaseFrequency: AutoreleaseFrequency = .inherit,
        target: DispatchQueue? = nil
    ) {
        self.label = label
        kind = attributes.contains(.concurrent) ? .concurrent : .serial
        // libdispatch's attribute call refuses a relative priority outside -15...0, and the
        // queue is made without a QoS (probe against the toolchain's Dispatch: `qos` reads
        // unspecified, relative priority 0).
        let qos = qos.hasValidRelativePriority ? qos : .unspecified
        requestedQoSClass = qos.qosClass
        requestedRelativePriority = Int8(qos.relativePriority)
        let resolvedTarget = target ?? DispatchQueue.root(for: qos.qosClass.band)
        band = qos.qosClass == .unspecified ? resolvedTarget.band : qos.qosClass.band
        isOvercommitRoot = false
        targetWord = Atomic(UInt(bitPattern: Unmanaged.passRetained(resolvedTarget).toOpaque()))
        rootTargeted = Atomic(resolvedTarget.kind == .root)
        defaultTargeted = Atomic(target == nil)
        state = Atomic(attributes.contains(.initiallyInactive) ? QueueState.inactive : 0)
        super.init()
    }

    /// A root (global) queue or the main queue.
    init(specialLabel: String, kind: Kind, band: QoSBand, overcommit: Bool = false) {
        label = specialLabel
        self.kind = kind
        self.band = band
        isOvercommitRoot = overcommit
        requestedQoSClass = band.qosClass
        requestedRelativePriority = 0
        targetWord = Atomic(0)
        rootTargeted = Atomic(false)
        defaultTargeted = Atomic(false)
        state = Atomic(0)
        super.init()
    }

    deinit {
        let current = QueueState(raw: state.load(ordering: .acquiring))
        if current.isInactive {
            fatalError("Conveyor: release of an inactive queue '\(label)' (activate it before its last reference goes)")
        }
        if current.suspendCount > 0 {
            fatalError("Conveyor: release of a suspended queue '\(label)' (resume it before its last reference goes)")
        }
        items.removeAll()
        // The C finalizer runs on the target the queue has now, at its disposal, as
        // libdispatch reads the target then: a retarget may still have been pending at
        // the last `dispatch_release` (`CObject.objectEnded`). The acquiring loads here
        // pair with the releasing store of the companion (`CObject.companion(of:)`) and the
        // exchange of the target (`setTargetWord`).
        if let companion = cCompanion.load(ordering: .acquiring) {
            Unmanaged<CObject>.fromOpaque(companion).takeUnretainedValue().objectEnded(target: targetQueue)
        }
        if let target = UnsafeRawPointer(bitPattern: targetWord.load(ordering: .acquiring)) {
            Unmanaged<DispatchQueue>.fromOpaque(target).release()
        }
        if hasSpecifics.load(ordering: .acquiring) { QueueSpecifics.shared.removeAll(queue: ObjectIdentifier(self)) }
    }

    /// Suspends the start of new tasks (global queues and the main queue ignore it, as
    /// with libdispatch). Tasks already running go on. Calls nest: each needs a matching
    /// `resume()`.
    public override func suspend() { suspendQueue() }

    /// Undoes one `suspend()`; over-resuming traps. On an inactive queue that was never
    /// suspended, activates it.
    public override func resume() { resumeQueue() }

    /// Activates a queue created with `.initiallyInactive`; its tasks may then start.
    public override func activate() { activateQueue() }

    /// Sets the queue that runs this queue's work (nil: the global queue of its QoS).
    /// Only while the queue is inactive; changing the target of an active queue traps.
    /// Global queues and the main queue ignore it, as with libdispatch.
    public override func setTarget(queue: DispatchQueue?) { retarget(to: queue) }

    /// The quality of service of this queue, as libdispatch reports it: the one it was
    /// made with; without one, that of the global queue it targets directly (none for a
    /// queue that targets another queue); a global queue's own; and `.unspecified` for the
    /// main queue and the default global queue (their QoS is only a fallback for work
    /// that brings none).
    public var qos: DispatchQoS {
        switch kind {
        case .main:
            return .unspecified
        case .root:
            return band == .default ? .unspecified : DispatchQoS(qosClass: band.qosClass, relativePriority: 0)
        case .serial, .concurrent:
            if requestedQoSClass == .unspecified, let target = targetQueue, target.kind == .root {
                return target.qos
            }
            return DispatchQoS(qosClass: requestedQoSClass, relativePriority: Int(requestedRelativePriority))
        }
    }

    // MARK: global and main queues

    private static let roots: [DispatchQueue] = QoSBand.allCases.map { band in
        DispatchQueue(specialLabel: "com.apple.root.\(band.labelName)-qos", kind: .root, band: band)
    }

    @usableFromInline
    static func root(for band: QoSBand) -> DispatchQueue { roots[Int(band.rawValue)] }

    /// The overcommitting global queues, one per band: the C API's
    /// `dispatch_get_global_queue(qos, DISPATCH_QUEUE_OVERCOMMIT)`. Their work, and the
    /// drains of queues that target them, always gets a thread: while such a job runs the
    /// pool wants one more runnable worker, as libdispatch starts a thread for each such
    /// item (its `dispatch_overcommit` test: 32 items that spin until all have started).
    private static let overcommitRoots: [DispatchQueue] = QoSBand.allCases.map { band in
        DispatchQueue(specialLabel: "com.apple.root.\(band.labelName)-qos.overcommit", kind: .root, band: band, overcommit: true)
    }

    static func overcommitRoot(for band: QoSBand) -> DispatchQueue { overcommitRoots[Int(band.rawValue)] }

    /// The global concurrent queue for a quality-of-service class. Global queues live for
    /// the whole process; suspending them or their barriers has no effect.
    public class func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue {
        root(for: qos.band)
    }

    /// The global concurrent queue for an old-style priority.
    ///
    /// Deprecated on Apple's platforms only, as Dispatch declares it: a Linux program that
    /// calls it builds without a warning against either module.
    @available(macOS, deprecated: 10.10, renamed: "global(qos:)")
    @available(iOS, deprecated: 8.0, renamed: "global(qos:)")
    @available(tvOS, deprecated, renamed: "global(qos:)")
    @available(watchOS, deprecated, renamed: "global(qos:)")
    public class func global(priority: GlobalQueuePriority) -> DispatchQueue {
        switch priority {
        case .high: global(qos: .userInitiated)
        case .default: global(qos: .default)
        case .low: global(qos: .utility)
        case .background: global(qos: .background)
        }
    }

    /// The serial queue whose tasks run on the main thread, drained by `dispatchMain()`
    /// (or by a host event loop through `DispatchQueue.mainQueueEventDescriptor`).
    public class var main: DispatchQueue { MainQueueRunner.shared.queue }
}

extension QoSBand {
    var labelName: String {
        switch self {
        case .userInteractive: "user-interactive"
        case .userInitiated: "user-initiated"
        case .default: "default"
        case .utility: "utility"
        case .background: "background"
        }
    }
}

/// The job that stands for a queue on its target (one per queue: a queue is scheduled at
/// most once at a time, guarded by its `enqueued` bit; a second one only after a
/// `DrainStealerJob` took a scheduling from this one, which is then never used again).
@usableFromInline
final class QueueDrainJob: Job, @unchecked Sendable {
    @usableFromInline unowned(unsafe) let queue: DispatchQueue
    /// The scheduling this job stands for (`drainTicket`), 0 when nothing else may claim
    /// it (a queue that targets another queue). Written by the holder of the `enqueued`
    /// bit before it gives the job to the pool (after the ticket's store, which a stealer
    /// may claim: it never reads this job).
    @exclusivity(unchecked) final var ticket: UInt64 = 0

    init(queue: DispatchQueue) {
        self.queue = queue
        super.init(band: queue.band, isQueueDrain: true)
    }

    @usableFromInline
    override func run(on parent: DispatchQueue?) {
        if ticket != 0 && !queue.claimScheduledDrain(ticket) {
            // A stealer drained in this job's place and passed its retain of the queue to
            // this job, for this moment: the queue lived until the job left the pool.
            Unmanaged.passUnretained(queue).release()
            return
        }
        queue.drainScheduled()
    }
}
