/// The outcome of a wait with a deadline (`DispatchSemaphore.wait(timeout:)`,
/// `DispatchGroup.wait(timeout:)`, `DispatchWorkItem.wait(timeout:)`): whether what was
/// awaited happened before the deadline passed.
public enum DispatchTimeoutResult: Sendable {
    /// What was awaited happened before the deadline.
    case success
    /// The deadline passed first.
    case timedOut
}
