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

/// The outcome of a wait with a deadline (`DispatchSemaphore.wait(timeout:)`,
/// `DispatchGroup.wait(timeout:)`, `DispatchWorkItem.wait(timeout:)`): whether what was
/// awaited happened before the deadline passed.
public enum DispatchTimeoutResult: Sendable {
    /// What was awaited happened before the deadline.
    case success
    /// The deadline passed first.
    case timedOut
}
