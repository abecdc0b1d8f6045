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

/// The compiler version, read from `#if compiler(...)` checks because no API reports it.
let compilerVersion: String = {
    #if compiler(>=7.0)
    return "7.0 or later"
    #elseif compiler(>=6.5)
    return "6.5.x"
    #elseif compiler(>=6.4)
    return "6.4.x"
    #elseif compiler(>=6.3.3)
    return "6.3.3"
    #elseif compiler(>=6.3.2)
    return "6.3.2"
    #elseif compiler(>=6.3.1)
    return "6.3.1"
    #elseif compiler(>=6.3)
    return "6.3"
    #elseif compiler(>=6.2)
    return "6.2.x"
    #elseif compiler(>=6.1)
    return "6.1.x"
    #else
    return "6.0.x"
    #endif
}()
