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

/// A source whose events are numbers the program adds with `add(data:)`; the handler's
/// `data` is their sum since it last ran.
public protocol DispatchSourceUserDataAdd: DispatchSourceProtocol {
    /// Adds `data` to the pending value and submits the event handler. Zero has no effect.
    func add(data: UInt)
}

extension DispatchSourceUserDataAdd {
    /// Adds `data` to the pending value and submits the event handler. Zero has no effect.
    public func add(data: UInt) { concreteSource.mergeUserData(data, as: .add) }
}

/// A source whose events are bit masks the program ORs in with `or(data:)`; the handler's
/// `data` is their union since it last ran.
public protocol DispatchSourceUserDataOr: DispatchSourceProtocol {
    /// ORs `data` into the pending value and submits the event handler. Zero has no effect.
    func or(data: UInt)
}

extension DispatchSourceUserDataOr {
    /// ORs `data` into the pending value and submits the event handler. Zero has no effect.
    public func or(data: UInt) { concreteSource.mergeUserData(data, as: .or) }
}

/// A source whose events are values the program sets with `replace(data:)`; the handler's
/// `data` is the latest one.
public protocol DispatchSourceUserDataReplace: DispatchSourceProtocol {
    /// Replaces the pending value with `data` and submits the event handler. Zero is
    /// stored but submits nothing (a pending non-zero value is thereby dropped).
    func replace(data: UInt)
}

extension DispatchSourceUserDataReplace {
    /// Replaces the pending value with `data` and submits the event handler. Zero is
    /// stored but submits nothing (a pending non-zero value is thereby dropped).
    public func replace(data: UInt) { concreteSource.mergeUserData(data, as: .replace) }
}
