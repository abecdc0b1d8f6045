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

// conveyor-examples: the listings of the "Dispatch Queues" chapter, written in Swift and
// run against Conveyor. Each prints what it shows and checks its claims; the program
// exits 0 when every claim held. The work lives in nonisolated functions in other files
// (a closure written here would be inferred `@MainActor`).
#if canImport(Glibc)
import Glibc
#endif

runListingsThenServeMainQueue(mainThread: pthread_self())
