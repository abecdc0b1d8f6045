import Synchronization

// Suspension, activation and targeting: the parts of the state word that stop a queue
// from starting work, and the calls that lift them.
extension DispatchQueue {
    final func suspendQueue() {
        if kind == .root { return }
        let before = QueueState(raw: state.wrappingAdd(QueueState.suspendUnit, ordering: .acquiringAndReleasing).oldValue)
        if before.suspendCount == QueueState.suspendMask - 1 {
            preconditionFailure("Conveyor: too many nested suspend() calls on queue '\(label)'")
        }
    }

    final func resumeQueue() {
        if kind == .root { return }
        var current = state.load(ordering: .acquiring)
        while true {
            let view = QueueState(raw: current)
            if view.suspendCount == 0 {
                if view.isInactive {
                    activateQueue()
                    return
                }
                preconditionFailure("Conveyor: over-resume of queue '\(label)' (resume() called more often than suspend())")
            }
            let desired = current - QueueState.suspendUnit
            let (done, seen) = state.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if done {
                if !QueueState(raw: desired).isStopped && !items.isEmpty { wakeup() }
                return
            }
            current = seen
        }
    }

    final func activateQueue() {
        let before = QueueState(raw: state.bitwiseAnd(~QueueState.inactive, ordering: .acquiringAndReleasing).oldValue)
        guard before.isInactive else { return }
        if before.suspendCount == 0 && !items.isEmpty { wakeup() }
    }

    final func retarget(to newTarget: DispatchQueue?) {
        if kind == .root || kind == .main {
            preconditionFailure("Conveyor: the target of queue '\(label)' cannot be changed")
        }
        guard QueueState(raw: state.load(ordering: .acquiring)).isInactive else {
            preconditionFailure("Conveyor: setTarget(queue:) called on active queue '\(label)'; create it with .initiallyInactive and set the target before activate()")
        }
        let target = newTarget ?? DispatchQueue.root(for: band)
        var level: DispatchQueue? = target
        while let current = level {
            if current === self {
                preconditionFailure("Conveyor: setTarget(queue:) would make queue '\(label)' target itself")
            }
            level = current.targetQueue
        }
        targetQueue = target
        isRootTargeted = target.kind == .root
    }
}
