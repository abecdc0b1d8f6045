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

import CConveyor
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// The C API's object model (dispatch_retain/release, context, finalizer).
//
// A C handle (`dispatch_queue_t`, `dispatch_group_t`, …) is the address of a `CObject`,
// passed with `Unmanaged`. The C reference count is counted apart (`references`): the
// program's references hold the object (`owner`) until the last `dispatch_release`; the
// object holds its box (`DispatchObject.cCompanion`) until it ends, which its own work
// decides, and the box's finalizer runs then. The box carries the context and finalizer
// the C API attaches.
// Some handles are not boxes, or not freed: the main queue and the empty data, whose
// handles are the addresses of C data symbols (`cnv__dispatch_main_q`, so that
// `dispatch_get_main_queue()` stays a constant expression as in libdispatch's headers, and
// `cnv__dispatch_data_empty`), and the global queues, whose boxes are immortal. Static C objects begin with a small tag word (`CStaticTag`); a box begins
// with its Swift metadata pointer, never that small, which tells the two apart.

/// A C `dispatch_function_t`.
package typealias CFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// The tag words at the start of the C API's static objects (defined once, for the C
/// targets too, in CConveyor's `cnv_static_objects.h`).
enum CStaticTag {
    static let mainQueue = UInt(CNV_STATIC_TAG_MAIN_QUEUE)
    static let queueAttributes = UInt(CNV_STATIC_TAG_QUEUE_ATTRIBUTES)
    static let sourceType = UInt(CNV_STATIC_TAG_SOURCE_TYPE)
    static let dataEmpty = UInt(CNV_STATIC_TAG_DATA_EMPTY)
    /// Every tag is below this; a Swift object's first word never is.
    static let limit = UInt(CNV_STATIC_TAG_LIMIT)
}

/// The context of a C object and its finalizer, shared by the object's box and the
/// source handlers that read the context when they run (so a handler in flight never
/// reaches a freed box).
final class CContext: @unchecked Sendable {
    private let contextWord = Atomic<UInt>(0)
    private let finalizerWord = Atomic<UInt>(0)
    /// The queue a group's, semaphore's or I/O channel's finalizer runs on, set by
    /// `dispatch_set_target_queue` (0: the default global queue); holds a retain.
    private let finalizerTargetWord = Atomic<UInt>(0)

    /// Where a group's, semaphore's or I/O channel's finalizer runs (queues and sources
    /// use their own target). Set with a release and read with an acquire, so the reader
    /// sees the queue the retain was taken for; the exchange hands the old retain back.
    var finalizerTarget: DispatchQueue? {
        get {
            let word = finalizerTargetWord.load(ordering: .acquiring)
            return UnsafeRawPointer(bitPattern: word).map { Unmanaged<DispatchQueue>.fromOpaque($0).takeUnretainedValue() }
        }
        set {
            let word = newValue.map { UInt(bitPattern: retainedForPublishing($0).toOpaque()) } ?? 0
            let old = finalizerTargetWord.exchange(word, ordering: .acquiringAndReleasing)
            if let raw = UnsafeRawPointer(bitPattern: old) { Unmanaged<DispatchQueue>.fromOpaque(raw).release() }
        }
    }

    deinit {
        if let raw = UnsafeRawPointer(bitPattern: finalizerTargetWord.load(ordering: .acquiring)) {
            Unmanaged<DispatchQueue>.fromOpaque(raw).release()
        }
    }

    var context: UnsafeMutableRawPointer? {
        get { UnsafeMutableRawPointer(bitPattern: contextWord.load(ordering: .acquiring)) }
        set { contextWord.store(UInt(bitPattern: newValue), ordering: .releasing) }
    }

    var finalizer: CFunction? {
        get {
            let word = finalizerWord.load(ordering: .acquiring)
            return word == 0 ? nil : unsafeBitCast(word, to: CFunction.self)
        }
        set { finalizerWord.store(newValue.map { unsafeBitCast($0, to: UInt.self) } ?? 0, ordering: .releasing) }
    }
}

/// What a C handle points at: a Conveyor object with its C context.
///
/// Lifetime, as libdispatch's (which counts external and internal references apart): the
/// C references (`dispatch_retain`/`dispatch_release`) are counted in `references`;
/// while there are any, the box holds its object (`owner`). The object holds the box in
/// turn (`DispatchObject.cCompanion`), so the box, and with it the handle, lives exactly
/// as long as the object. After the last `dispatch_release` the object lives on while
/// its own work keeps it: a queue while it has work scheduled (its drain's retain), a
/// group while it has members (it retains itself), a source until its cancel handler has
/// returned or it is unregistered (its delivery job's reference), an I/O channel while
/// operations run. So work still pending may use the handle (`dispatch_get_context`,
/// resubmitting to the queue), as libdispatch allows; and the finalizer runs when the
/// object is gone (`deinit` below), with the context of that moment.
final class CObject: @unchecked Sendable {
    enum Kind { case queue, group, semaphore, source, data, io }

    /// The object, unretained: kept alive by `owner`, then by its own work (see above).
    let objectReference: Unmanaged<DispatchObject>
    /// The object (a strong reference for the caller).
    var object: DispatchObject { objectReference.takeUnretainedValue() }
    /// The object while C references exist; dropped by the last `dispatch_release`.
    private var owner: DispatchObject?
    /// The C references. Starts at 1 for a handle's creator; unused by global boxes and
    /// by companions that only hold a label (`isHandle` false).
    private let references = Atomic<Int>(1)
    /// The context and finalizer, made by the first call that sets either (or a source's
    /// C handler): most objects never get one, and an idle queue's handle is one allocation
    /// smaller for it. Holds a retain, released in `deinit`.
    private let contextStorage = Atomic<UnsafeMutableRawPointer?>(nil)
    /// The queue's label as a C string, made on first request and freed with the box,
    /// that is with the queue (`dispatch_queue_get_label`).
    private let labelCopy = Atomic<UnsafeMutablePointer<CChar>?>(nil)
    /// Where the finalizer goes: the target when the last C reference went, updated at a
    /// queue's disposal (`objectEnded`).
    private var finalizerTarget: DispatchQueue?
    /// Targets this queue had before a retarget while active: kept for the queue's life,
    /// since a thread walking the target chain may still read the old one (`RetargetJob`).
    /// Touched only by `RetargetJob`, which runs holding the queue alone.
    private var retiredTargets: [DispatchQueue] = []
    // The one-byte fields last, together: the box takes 80 bytes instead of 96.
    let kind: Kind
    /// Global and main queues ignore retain and release, and are never finalized.
    let isGlobal: Bool
    /// Whether this box is a C handle given out by a creation call (not a label holder).
    let isHandle: Bool
    /// A queue made by `dispatch_queue_create` (not inactive, no target given): its
    /// target may change while it is active, as libdispatch allows for such queues. Set
    /// before the handle is returned.
    var isRetargetable = false

    /// The context and finalizer, if any call has set them.
    var existingContext: CContext? {
        // Pairs with the releasing swap in `context`: a box found here is seen whole.
        contextStorage.load(ordering: .acquiring).map { Unmanaged<CContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The context and finalizer, made on first use.
    var context: CContext {
        if let existing = existingContext { return existing }
        let made = Unmanaged.passRetained(CContext())
        // Pairs with the acquiring load in `existingContext` and in racing calls here: the
        // winner's box is published whole; a loser drops its own and uses the winner's.
        let (done, seen) = contextStorage.compareExchange(
            expected: nil, desired: made.toOpaque(), ordering: .acquiringAndReleasing)
        if done { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged<CContext>.fromOpaque(seen!).takeUnretainedValue()
    }

    /// Keeps a queue's former target alive as long as the queue (`RetargetJob`).
    func retire(_ target: DispatchQueue) { retiredTargets.append(target) }

    /// A box that holds `object` for ever (global objects) or, with `isHandle` false, a
    /// companion that only carries a label.
    init(_ object: DispatchObject, kind: Kind, isGlobal: Bool = false, isHandle: Bool = false) {
        cnv_capi_note_state_made()   // the drop-in library forwards to a program's runtime only before this
        objectReference = .passUnretained(object)
        self.kind = kind
        self.isGlobal = isGlobal
        self.isHandle = isHandle
        owner = isGlobal || isHandle ? object : nil
    }

    /// A new handle holding the one reference its creator owns.
    static func retainedHandle(_ object: DispatchObject, kind: Kind) -> UnsafeMutableRawPointer {
        retainedHandle(object, kind: kind, attachedTo: object.cCompanion)
    }

    /// A new handle whose box is kept by `slot`'s owner (the object itself, or what
    /// outlives it: a data object's buffer, `CData.retainedLeafHandle`).
    static func retainedHandle(_ object: DispatchObject, kind: Kind,
                               attachedTo slot: borrowing Atomic<UnsafeMutableRawPointer?>) -> UnsafeMutableRawPointer {
        let box = CObject(object, kind: kind, isHandle: true)
        // A new object: nobody else can have attached a companion yet. Releasing: pairs
        // with the acquiring loads that find the box (`companion(of:)`, `CLabels.handle`,
        // the owner's deinit), which then see it whole.
        let attached = slot.compareExchange(
            expected: nil, desired: Unmanaged.passRetained(box).toOpaque(), ordering: .releasing).exchanged
        ensure(attached, "Conveyor: a new object already had a C handle")
        return Unmanaged.passUnretained(box).toOpaque()
    }

    /// The companion of an object the C API did not make (a queue made in Swift whose
    /// label C code asks for), attached on first use and released with the object. A
    /// C-made object's companion is its handle's box.
    static func companion(of object: DispatchObject, kind: Kind) -> CObject {
        if let existing = object.cCompanion.load(ordering: .acquiring) {
            return Unmanaged<CObject>.fromOpaque(existing).takeUnretainedValue()
        }
        let made = Unmanaged.passRetained(CObject(object, kind: kind))
        // Pairs with the acquiring load above and in other racing calls: the winner's box
        // is published whole; a loser drops its own and uses the winner's.
        let (done, seen) = object.cCompanion.compareExchange(
            expected: nil, desired: made.toOpaque(), ordering: .acquiringAndReleasing)
        if done { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged<CObject>.fromOpaque(seen!).takeUnretainedValue()
    }

    /// `dispatch_retain`.
    func retainReference() {
        if isGlobal { return }
        let before = references.wrappingAdd(1, ordering: .relaxed).oldValue
        if before <= 0 { fatalError("Conveyor: dispatch_retain of an object whose last reference was released (resurrection)") }
    }

    /// `dispatch_release`: the last one lets go of the object, which then lives only as
    /// long as its own work keeps it.
    func releaseReference() {
        if isGlobal { return }
        // Releasing: everything this thread did with the object happens before the last
        // release's disposal, which acquires (the same pairing as a reference count's).
        let after = references.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
        if after > 0 { return }
        if after < 0 { fatalError("Conveyor: dispatch_release of an object with no references left (over-release)") }
        finalizerTarget = finalizerQueue
        owner = nil   // may end the object now, and this box with it (the caller holds the box)
    }

    /// A queue's disposal: its finalizer, if the last C reference went (`finalizerTarget`
    /// set then), runs on the target the queue has at this moment, which a retarget
    /// pending at that release may have changed. Called from the queue's `deinit`, which
    /// happens after the last release (the reference count's release and acquire order
    /// the two writes).
    func objectEnded(target: DispatchQueue?) {
        if finalizerTarget != nil, let target { finalizerTarget = target }
    }

    /// The label of `queue` as a C string that lives as long as this box.
    func labelCString(_ queue: DispatchQueue) -> UnsafePointer<CChar> {
        if let copy = labelCopy.load(ordering: .acquiring) { return UnsafePointer(copy) }
        guard let made = strdup(queue.label) else { fatalError("Conveyor: out of memory copying the label of queue '\(queue.label)'") }
        // Pairs with the acquiring load above: a racing caller either sees the copy whole
        // or loses the swap and frees its own.
        let (done, seen) = labelCopy.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
        if done { return UnsafePointer(made) }
        free(made)
        return UnsafePointer(seen!)
    }

    /// The box behind a handle (not retained). Traps on NULL, as libdispatch crashes there.
    @inline(__always)
    static func from(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> CObject {
        guard let handle else { fatalError("Conveyor: \(function) called with a NULL object") }
        if handle.load(as: UInt.self) < CStaticTag.limit { return fromStatic(handle, function) }
        return Unmanaged<CObject>.fromOpaque(handle).takeUnretainedValue()
    }

    private static func fromStatic(_ handle: UnsafeMutableRawPointer, _ function: StaticString) -> CObject {
        switch handle.load(as: UInt.self) {
        case CStaticTag.mainQueue: return mainQueueObject
        case CStaticTag.dataEmpty: return CData.emptyObject
        default: fatalError("Conveyor: \(function) called with something that is not a dispatch object")
        }
    }

    static let mainQueueObject = CObject(DispatchQueue.main, kind: .queue, isGlobal: true)

    /// The queue behind a handle; traps if it is another kind of object.
    @inline(__always)
    static func queue(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) -> DispatchQueue {
        let box = from(handle, function)
        guard box.kind == .queue else { fatalError("Conveyor: \(function) called with a \(box.kind), not a queue") }
        return unsafeDowncast(box.object, to: DispatchQueue.self)
    }

    /// Calls `body` with the queue behind a handle without retaining it: the submission
    /// paths' form of `queue(_:_:)` (see `with(_:_:as:_:_:)`).
    @inline(__always)
    static func withQueue(_ handle: UnsafeMutableRawPointer?, _ function: StaticString, _ body: (DispatchQueue) -> Void) {
        with(handle, .queue, as: DispatchQueue.self, function, body)
    }

    /// Calls `body` with the object of `kind` behind a handle, without retaining it (the
    /// caller's reference keeps it alive for the call; static objects live for ever); traps
    /// on NULL and on another kind of object, as `from(_:_:)` and `queue(_:_:)` do. For hot
    /// paths: a retain and release there is an atomic pair on a line other threads use.
    @inline(__always)
    static func with<T: AnyObject, R>(_ handle: UnsafeMutableRawPointer?, _ kind: Kind, as type: T.Type,
                                      _ function: StaticString, _ body: (T) -> R) -> R {
        guard let handle, handle.load(as: UInt.self) >= CStaticTag.limit else {
            let box = from(handle, function)
            guard box.kind == kind else { fatalError("Conveyor: \(function) called with a \(box.kind), not a \(kind)") }
            return body(unsafeDowncast(box.object, to: T.self))
        }
        return Unmanaged<CObject>.fromOpaque(handle)._withUnsafeGuaranteedRef { box in
            guard box.kind == kind else { fatalError("Conveyor: \(function) called with a \(box.kind), not a \(kind)") }
            return box.objectReference._withUnsafeGuaranteedRef { object in
                body(unsafeDowncast(object, to: T.self))
            }
        }
    }

    /// The queue on which this object's finalizer runs.
    var finalizerQueue: DispatchQueue {
        switch kind {
        case .queue:
            let queue = unsafeDowncast(object, to: DispatchQueue.self)
            return queue.targetQueue ?? DispatchQueue.global()
        case .source:
            let source = unsafeDowncast(object, to: DispatchSource.self)
            return source.lock.withLock { source.targetQueue }
        case .group, .semaphore, .io:
            // The target `dispatch_set_target_queue` gave, as libdispatch's `do_targetq`.
            return existingContext?.finalizerTarget ?? DispatchQueue.global()
        case .data:
            return DispatchQueue.global()
        }
    }

    deinit {
        if let copy = labelCopy.load(ordering: .acquiring) { free(copy) }
        guard let stored = contextStorage.load(ordering: .acquiring) else { return }
        let context = Unmanaged<CContext>.fromOpaque(stored).takeRetainedValue()
        // The object is gone, its work all done (see the type's comment). The finalizer
        // runs with the context, when there is one, on the object's target queue.
        guard let finalizer = context.finalizer, let value = context.context, let target = finalizerTarget else { return }
        let contextBits = UInt(bitPattern: value)
        target.async { finalizer(UnsafeMutableRawPointer(bitPattern: contextBits)) }
    }
}

@_cdecl("cnv_dispatch_retain")
package func cnv_dispatch_retain(_ handle: UnsafeMutableRawPointer?) {
    CObject.from(handle, "dispatch_retain").retainReference()
}

@_cdecl("cnv_dispatch_release")
package func cnv_dispatch_release(_ handle: UnsafeMutableRawPointer?) {
    let box = CObject.from(handle, "dispatch_release")
    // The last release may end the object and, with it, the box: hold the box to the end.
    withExtendedLifetime(box) { box.releaseReference() }
}

@_cdecl("cnv_dispatch_get_context")
package func cnv_dispatch_get_context(_ handle: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    CObject.from(handle, "dispatch_get_context").existingContext?.context
}

@_cdecl("cnv_dispatch_set_context")
package func cnv_dispatch_set_context(_ handle: UnsafeMutableRawPointer?, _ value: UnsafeMutableRawPointer?) {
    let box = CObject.from(handle, "dispatch_set_context")
    if box.isGlobal { return }   // as libdispatch: global objects keep no context
    box.context.context = value
}

@_cdecl("cnv_dispatch_set_finalizer_f")
package func cnv_dispatch_set_finalizer_f(_ handle: UnsafeMutableRawPointer?, _ finalizer: CFunction?) {
    let box = CObject.from(handle, "dispatch_set_finalizer_f")
    if box.isGlobal { return }
    box.context.finalizer = finalizer
}

@_cdecl("cnv_dispatch_suspend")
package func cnv_dispatch_suspend(_ handle: UnsafeMutableRawPointer?) {
    CObject.from(handle, "dispatch_suspend").object.suspend()
}

@_cdecl("cnv_dispatch_resume")
package func cnv_dispatch_resume(_ handle: UnsafeMutableRawPointer?) {
    CObject.from(handle, "dispatch_resume").object.resume()
}

@_cdecl("cnv_dispatch_activate")
package func cnv_dispatch_activate(_ handle: UnsafeMutableRawPointer?) {
    CObject.from(handle, "dispatch_activate").object.activate()
}

@_cdecl("cnv_dispatch_set_target_queue")
package func cnv_dispatch_set_target_queue(_ handle: UnsafeMutableRawPointer?, _ queue: UnsafeMutableRawPointer?) {
    let target = queue.map { CObject.queue($0, "dispatch_set_target_queue") }
    let box = CObject.from(handle, "dispatch_set_target_queue")
    // Global queues and the main queue keep their target, as libdispatch's do.
    if box.isGlobal { return }
    // Groups, semaphores and I/O channels run their finalizer on their target (libdispatch
    // keeps one for every object with a context); data objects on the default global queue.
    switch box.kind {
    case .group, .semaphore:
        box.context.finalizerTarget = target
        return
    case .io:
        box.context.finalizerTarget = target   // and the channel takes the target below
    case .data:
        return
    case .queue, .source:
        break
    }
    if box.isRetargetable {
        // A queue from dispatch_queue_create, active from the start: retargeted in order
        // with its work, as libdispatch does (its header's comment on this call). Queues
        // made inactive or with a target trap when active, in setTarget, as there.
        unsafeDowncast(box.object, to: DispatchQueue.self).retargetInOrder(to: target) { [box] old in box.retire(old) }
        return
    }
    box.object.setTarget(queue: target)
}
