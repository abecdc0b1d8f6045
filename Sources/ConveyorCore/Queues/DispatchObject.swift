/// The base of the objects that hold work: queues and sources. It gives them the
/// life-cycle calls the chapter describes: activation, suspension and targeting.
public class DispatchObject: @unchecked Sendable {
    @usableFromInline init() {}

    /// Sets the queue on which this object's work runs. Allowed only while the object is
    /// inactive (created with `.initiallyInactive`, or a source before `activate()`).
    public func setTarget(queue: DispatchQueue?) {
        fatalError("Conveyor: setTarget(queue:) is not supported on \(type(of: self))")
    }

    /// Activates an object created inactive, so its work can start. Activating an active
    /// object does nothing.
    public func activate() {}

    /// Suspends the start of new work. Calls nest: each needs a matching `resume()`.
    /// Work already running is not interrupted.
    public func suspend() {}

    /// Undoes one `suspend()`. Resuming more often than suspended traps. On an inactive
    /// object that was never suspended, `resume()` activates it.
    public func resume() {}
}
