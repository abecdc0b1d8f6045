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

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// Creating queues and reading them: dispatch_queue_create, attributes, global and main
// queues, labels and QoS classes.

/// A queue attribute (`dispatch_queue_attr_t`): interned records that live for the whole
/// process, as libdispatch's attributes do. NULL is `DISPATCH_QUEUE_SERIAL`; the C target's
/// static `cnv__dispatch_queue_attr_concurrent` is `DISPATCH_QUEUE_CONCURRENT`.
struct CQueueAttributes: Hashable {
    var concurrent = false
    var inactive = false
    var qosClass = DispatchQoS.QoSClass.unspecified
    var relativePriority = 0
    /// `dispatch_queue_attr_make_with_overcommit`: given no target, the queue targets the
    /// overcommitting global queue of its QoS (true) or the plain one (false); nil when
    /// not said, as libdispatch's default: a serial queue is then "on" the overcommitting
    /// queue, though Conveyor runs it as plain work (`DispatchQueue.defaultTargeted`).
    var overcommit: Bool? = nil

    /// The layout every attribute handle points at (the static one in C has the same).
    struct Record {
        var tag: UInt
        var concurrent: UInt
    }
    /// Records of attributes made by the `dispatch_queue_attr_make_*` calls, by address;
    /// guarded by `tablesLock`.
    nonisolated(unsafe) private static var made: [UInt: CQueueAttributes] = [:]
    /// The one handle of each set of attributes; guarded by `tablesLock`.
    nonisolated(unsafe) private static var interned: [CQueueAttributes: UnsafeMutableRawPointer] = [:]
    /// Conveyor's lock, not `Synchronization.Mutex`: ThreadSanitizer does not see Mutex's
    /// hand-off under contention (its priority-inheritance futex) and reports the tables'
    /// accesses as races (as it did in a test, de36a71), where every hand-off of this one
    /// goes through atomics it sees.
    private static let tablesLock = FutexLock()

    static func from(_ handle: UnsafeMutableRawPointer?) -> CQueueAttributes {
        guard let handle else { return CQueueAttributes() }
        let record = handle.load(as: Record.self)
        guard record.tag == CStaticTag.queueAttributes else {
            fatalError("Conveyor: a queue attribute argument is not a dispatch_queue_attr_t")
        }
        if let attributes = tablesLock.withLock({ made[UInt(bitPattern: handle)] }) { return attributes }
        return CQueueAttributes(concurrent: record.concurrent != 0)
    }

    /// The one handle for these attributes (allocated once, never freed).
    var handle: UnsafeMutableRawPointer {
        Self.tablesLock.withLock {
            if let handle = Self.interned[self] { return handle }
            let record = UnsafeMutablePointer<Record>.allocate(capacity: 1)
            record.initialize(to: Record(tag: CStaticTag.queueAttributes, concurrent: concurrent ? 1 : 0))
            let handle = UnsafeMutableRawPointer(record)
            Self.interned[self] = handle
            Self.made[UInt(bitPattern: handle)] = self
            return handle
        }
    }
}

extension DispatchQoS.QoSClass {
    /// The class of a C `qos_class_t` value (`QOS_CLASS_*`), nil if it names none.
    init?(cValue: UInt32) {
        switch cValue {
        case 0x21: self = .userInteractive
        case 0x19: self = .userInitiated
        case 0x15: self = .default
        case 0x11: self = .utility
        case 0x09: self = .background
        case 0x05: self = .background   // QOS_CLASS_MAINTENANCE: background, as libdispatch maps it
        case 0x00: self = .unspecified
        default: return nil
        }
    }

    /// The C `qos_class_t` value.
    var cValue: UInt32 {
        switch self {
        case .userInteractive: 0x21
        case .userInitiated: 0x19
        case .default: 0x15
        case .utility: 0x11
        case .background: 0x09
        case .unspecified: 0x00
        }
    }
}

@_cdecl("cnv_dispatch_queue_attr_make_with_qos_class")
package func cnv_dispatch_queue_attr_make_with_qos_class(_ attr: UnsafeMutableRawPointer?, _ qosClass: UInt32, _ relativePriority: Int32) -> UnsafeMutableRawPointer? {
    var attributes = CQueueAttributes.from(attr)
    // libdispatch returns DISPATCH_BAD_INPUT (NULL-like failure) for a bad class or priority.
    guard let qos = DispatchQoS.QoSClass(cValue: qosClass), relativePriority <= 0, relativePriority >= -15 else { return nil }
    attributes.qosClass = qos
    // A relative priority means nothing without a class: libdispatch keeps 0 then.
    attributes.relativePriority = qos == .unspecified ? 0 : Int(relativePriority)
    return attributes.handle
}

@_cdecl("cnv_dispatch_queue_attr_make_initially_inactive")
package func cnv_dispatch_queue_attr_make_initially_inactive(_ attr: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    var attributes = CQueueAttributes.from(attr)
    attributes.inactive = true
    return attributes.handle
}

@_cdecl("cnv_dispatch_queue_attr_make_with_autorelease_frequency")
package func cnv_dispatch_queue_attr_make_with_autorelease_frequency(_ attr: UnsafeMutableRawPointer?, _ frequency: UInt) -> UnsafeMutableRawPointer? {
    // No autorelease pools on Linux: every frequency behaves the same.
    CQueueAttributes.from(attr).handle
}

@_cdecl("cnv_dispatch_queue_create_with_target")
package func cnv_dispatch_queue_create_with_target(_ label: UnsafePointer<CChar>?, _ attr: UnsafeMutableRawPointer?, _ target: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    makeQueue(label, attr, target, retargetable: false)
}

/// A queue for the C API. `retargetable`: made by `dispatch_queue_create`, whose queues
/// libdispatch lets `dispatch_set_target_queue` retarget while active unless they were
/// made inactive.
private func makeQueue(_ label: UnsafePointer<CChar>?, _ attr: UnsafeMutableRawPointer?, _ target: UnsafeMutableRawPointer?,
                       retargetable: Bool) -> UnsafeMutableRawPointer {
    let attributes = CQueueAttributes.from(attr)
    var flags: DispatchQueue.Attributes = []
    if attributes.concurrent { flags.insert(.concurrent) }
    if attributes.inactive { flags.insert(.initiallyInactive) }
    let queue = DispatchQueue(
        label: label.map { String(cString: $0) } ?? "",
        qos: DispatchQoS(qosClass: attributes.qosClass, relativePriority: attributes.relativePriority),
        attributes: flags,
        target: target.map { CObject.queue($0, "dispatch_queue_create_with_target") } ?? attributes.overcommit.map {
            $0 ? DispatchQueue.overcommitRoot(for: attributes.qosClass.band) : DispatchQueue.root(for: attributes.qosClass.band)
        })
    let handle = CObject.retainedHandle(queue, kind: .queue)
    CObject.from(handle, "dispatch_queue_create").isRetargetable = retargetable && !attributes.inactive
    return handle
}

@_cdecl("cnv_dispatch_queue_create")
package func cnv_dispatch_queue_create(_ label: UnsafePointer<CChar>?, _ attr: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    makeQueue(label, attr, nil, retargetable: true)
}

/// The immortal boxes of the global queues, one per QoS band, and of the overcommitting ones.
private let globalQueueObjects: [CObject] = QoSBand.allCases.map {
    CObject(DispatchQueue.root(for: $0), kind: .queue, isGlobal: true)
}
private let overcommitQueueObjects: [CObject] = QoSBand.allCases.map {
    CObject(DispatchQueue.overcommitRoot(for: $0), kind: .queue, isGlobal: true)
}

@_cdecl("cnv_dispatch_get_global_queue")
package func cnv_dispatch_get_global_queue(_ identifier: Int, _ flags: UInt) -> UnsafeMutableRawPointer? {
    let qos: DispatchQoS.QoSClass
    switch identifier {
    case 2: qos = .userInitiated                 // DISPATCH_QUEUE_PRIORITY_HIGH
    case 0: qos = .default                       // DISPATCH_QUEUE_PRIORITY_DEFAULT
    case -2: qos = .utility                      // DISPATCH_QUEUE_PRIORITY_LOW
    case Int(Int16.min): qos = .background       // DISPATCH_QUEUE_PRIORITY_BACKGROUND
    default:
        // libdispatch answers NULL for an unknown class (and for flags other than 0).
        guard identifier >= 0, identifier <= Int(UInt32.max), let named = DispatchQoS.QoSClass(cValue: UInt32(identifier)) else { return nil }
        qos = named
    }
    // libdispatch takes one flag, its private DISPATCH_QUEUE_OVERCOMMIT (2: a queue whose
    // work always gets a thread, which libdispatch's own tests use), and answers NULL for
    // any other.
    if flags & ~2 != 0 { return nil }
    let boxes = flags & 2 != 0 ? overcommitQueueObjects : globalQueueObjects
    return Unmanaged.passUnretained(boxes[Int(qos.band.rawValue)]).toOpaque()
}

@_cdecl("cnv_dispatch_queue_get_label")
package func cnv_dispatch_queue_get_label(_ handle: UnsafeMutableRawPointer?) -> UnsafePointer<CChar> {
    // DISPATCH_CURRENT_QUEUE_LABEL (NULL) names the queue the caller runs on. The C
    // string is the queue's own, freed with it, as libdispatch's (a Swift `String` has no
    // stable C buffer, so the queue's C record keeps a copy made on first request).
    if let handle {
        let box = CObject.from(handle, "dispatch_queue_get_label")
        guard box.kind == .queue else { fatalError("Conveyor: dispatch_queue_get_label called with a \(box.kind), not a queue") }
        return box.labelCString(unsafeDowncast(box.object, to: DispatchQueue.self))
    }
    let queue = currentQueue() ?? DispatchQueue.overcommitRoot(for: .default)
    return CLabels.box(of: queue).labelCString(queue)
}

@_cdecl("cnv_dispatch_queue_get_qos_class")
package func cnv_dispatch_queue_get_qos_class(_ handle: UnsafeMutableRawPointer?, _ relativePriority: UnsafeMutablePointer<Int32>?) -> UInt32 {
    let qos = CObject.queue(handle, "dispatch_queue_get_qos_class").qos
    relativePriority?.pointee = Int32(qos.relativePriority)
    return qos.qosClass.cValue
}

@_cdecl("cnv_dispatch_get_current_queue")
package func cnv_dispatch_get_current_queue() -> UnsafeMutableRawPointer? {
    // Deprecated in the headers; answers the default overcommitting global queue outside
    // any queue (a thread the program made), as libdispatch does, and the innermost
    // queue's handle when it is one the C API made.
    let queue = currentQueue() ?? DispatchQueue.overcommitRoot(for: .default)
    if queue.kind == .main { return cnv_main_queue_handle() }
    if queue.kind == .root { return Unmanaged.passUnretained(CLabels.box(of: queue)).toOpaque() }
    return CLabels.handle(of: queue) ?? cnv_dispatch_get_global_queue(0, 0)
}

/// The queue whose work the calling thread runs: the innermost frame's; the main queue on
/// the main thread outside any work, as libdispatch binds it; on a worker running work
/// submitted straight to a global queue (which runs with no frame), that global queue,
/// known from its band (`Job.rootBand`) and whether the job overcommits; nil on a thread
/// the program made, outside any queue.
func currentQueue() -> DispatchQueue? {
    if let framed = DrainFrame.innermostQueue { return framed }
    if ThreadInfo.isMainThread { return DispatchQueue.main }
    guard let worker = Worker.current else { return nil }
    return worker.runsOvercommit.load(ordering: .relaxed)
        ? DispatchQueue.overcommitRoot(for: worker.runningRootBand) : DispatchQueue.root(for: worker.runningRootBand)
}

/// The C records of queues for labels and `dispatch_get_current_queue`: a queue's C
/// record is its companion (`DispatchObject.cCompanion`), so its label's C string lives
/// exactly as long as the queue.
enum CLabels {
    /// The C record of any queue: the immortal boxes of the main and global queues, the
    /// handle's box of a C-made queue, or a companion made on first request.
    static func box(of queue: DispatchQueue) -> CObject {
        switch queue.kind {
        case .main: CObject.mainQueueObject
        case .root: (queue.isOvercommitRoot ? overcommitQueueObjects : globalQueueObjects)[Int(queue.band.rawValue)]
        case .serial, .concurrent: CObject.companion(of: queue, kind: .queue)
        }
    }

    /// The C handle of a queue made through the C API (nil for queues made in Swift).
    static func handle(of queue: DispatchQueue) -> UnsafeMutableRawPointer? {
        guard let companion = queue.cCompanion.load(ordering: .acquiring),
              Unmanaged<CObject>.fromOpaque(companion).takeUnretainedValue().isHandle else { return nil }
        return companion
    }
}
