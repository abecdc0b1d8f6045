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

/// The base of the objects that hold work: queues and sources. It gives them the
/// life-cycle calls the chapter describes: activation, suspension and targeting.
public class DispatchObject: @unchecked Sendable {
    /// The C API's record of this object (`CObject`: the box behind its C handle, or the
    /// holder of its label as a C string), as a retained `Unmanaged` pointer, released
    /// with the object: so a C handle lives exactly as long as its object, which its
    /// pending work keeps alive (libdispatch's internal references). Set once, by a
    /// compare-and-swap from nil (`CObject.companion(of:)`); nil for objects the C API
    /// never saw.
    let cCompanion = Atomic<UnsafeMutableRawPointer?>(nil)

    @usableFromInline init() {}

    deinit {
        // Runs after the subclasses' stored properties are gone: the companion never
        // touches the object (its finalizer runs with the context alone).
        if let companion = cCompanion.load(ordering: .acquiring) {
            Unmanaged<AnyObject>.fromOpaque(companion).release()
        }
    }

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
