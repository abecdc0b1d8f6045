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

// A child program for the main-queue tests: an `async` main. The concurrency runtime ends
// its synchronous part by serving the main thread; with Conveyor that is Conveyor's loop
// (installed through the runtime's hook), which runs main-queue blocks and MainActor jobs.
// Exits 0 when every check held.
import CConveyor
import Conveyor
import Glibc

@main
struct AsyncMainProbe {
    static func main() async {
        guard cnv_is_main_thread() != 0 else { exit(3) }
        let blockRanOnMain: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                DispatchQueue.main.async { continuation.resume(returning: cnv_is_main_thread() != 0) }
            }
        }
        guard blockRanOnMain else { exit(4) }
        let syncRanOnMain: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: DispatchQueue.main.sync { cnv_is_main_thread() != 0 })
            }
        }
        guard syncRanOnMain else { exit(5) }
        await Task.detached {
            await MainActor.run { dispatchPrecondition(condition: .onQueue(.main)) }
        }.value
        dispatchPrecondition(condition: .onQueue(.main))
        exit(0)
    }
}
