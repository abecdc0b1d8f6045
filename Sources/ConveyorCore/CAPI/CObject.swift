import Synchronization

// The C API's object model (dispatch_retain/release, context, finalizer).
//
// A C handle (`dispatch_queue_t`, `dispatch_group_t`, …) is the address of a `CObject`,
// passed with `Unmanaged`: its Swift reference count is the C reference count. The box
// holds the Conveyor object strongly plus the context and finalizer the C API attaches.
// Some handles are not boxes, or not freed: the main queue and the empty data, whose
// handles are the addresses of C data symbols (`cnv__dispatch_main_q`, so that
// `dispatch_get_main_queue()` stays a constant expression as in libdispatch's headers, and
// `cnv__dispatch_data_empty`), and the global queues, whose boxes are immortal. Static C objects begin with a small tag word (`CStaticTag`); a box begins
// with its Swift metadata pointer, never that small, which tells the two apart.

/// A C `dispatch_function_t`.
package typealias CFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// The tag words at the start of the C API's static objects (see the C target's
/// `statics.c`, which must use the same values).
enum CStaticTag {
    static let mainQueue: UInt = 1
    static let queueAttributes: UInt = 2
    static let sourceType: UInt = 3
    static let dataEmpty: UInt = 4
    /// Every tag is below this; a Swift object's first word never is.
    static let limit: UInt = 4096
}

/// The context of a C object and its finalizer, shared by the object's box and the
/// source handlers that read the context when they run (so a handler in flight never
/// reaches a freed box).
final class CContext: @unchecked Sendable {
    private let contextWord = Atomic<UInt>(0)
    private let finalizerWord = Atomic<UInt>(0)

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
final class CObject: @unchecked Sendable {
    enum Kind { case queue, group, semaphore, source, data, io }

    let kind: Kind
    let object: DispatchObject
    let context = CContext()
    /// Global and main queues ignore retain and release, and are never finalized.
    let isGlobal: Bool

    init(_ object: DispatchObject, kind: Kind, isGlobal: Bool = false) {
        self.object = object
        self.kind = kind
        self.isGlobal = isGlobal
    }

    /// A new handle holding the one reference its creator owns.
    static func retainedHandle(_ object: DispatchObject, kind: Kind) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(CObject(object, kind: kind)).toOpaque()
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
            return Unmanaged.passUnretained(box.object)._withUnsafeGuaranteedRef { object in
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
        case .group, .semaphore, .data, .io:
            return DispatchQueue.global()
        }
    }

    deinit {
        if kind == .queue { CLabels.shared.unregister(self) }
        // The last C reference is gone. The finalizer runs with the context, when there is
        // one, on the object's target queue once the object's pending work has run: for a
        // queue, after a barrier on the queue itself (which keeps the queue alive until
        // then); for the others, after the work already on the target queue.
        guard let finalizer = context.finalizer, let value = context.context else { return }
        let target = finalizerQueue
        let contextBits = UInt(bitPattern: value)
        let run: @Sendable () -> Void = { finalizer(UnsafeMutableRawPointer(bitPattern: contextBits)) }
        if kind == .queue {
            let queue = unsafeDowncast(object, to: DispatchQueue.self)
            queue.async(flags: .barrier) { target.async(execute: run) }
        } else {
            target.async(execute: run)
        }
    }
}

@_cdecl("cnv_dispatch_retain")
package func cnv_dispatch_retain(_ handle: UnsafeMutableRawPointer?) {
    let box = CObject.from(handle, "dispatch_retain")
    if box.isGlobal { return }
    _ = Unmanaged.passUnretained(box).retain()
}

@_cdecl("cnv_dispatch_release")
package func cnv_dispatch_release(_ handle: UnsafeMutableRawPointer?) {
    let box = CObject.from(handle, "dispatch_release")
    if box.isGlobal { return }
    Unmanaged.passUnretained(box).release()
}

@_cdecl("cnv_dispatch_get_context")
package func cnv_dispatch_get_context(_ handle: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    CObject.from(handle, "dispatch_get_context").context.context
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
    // Groups, semaphores and data run no work; their finalizer goes to the default global queue.
    if box.kind == .group || box.kind == .semaphore || box.kind == .data { return }
    box.object.setTarget(queue: target)
}
