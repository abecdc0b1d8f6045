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


// Foundation's `DataProtocol` for Conveyor's `DispatchData`, as Foundation gives it to the
// toolchain's: code generic over `DataProtocol` (hashing, `Data(_:)`, `copyBytes`, a
// `firstRange(of:)` search) takes Conveyor's data as it is, region by region, with no copy.
// Here, not in Conveyor's own modules, which do not import Foundation.
import ConveyorCore
import Foundation

extension ConveyorCore.DispatchData: DataProtocol {}

extension ConveyorCore.DispatchData.Region: DataProtocol, ContiguousBytes {}
