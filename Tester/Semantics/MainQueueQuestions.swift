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

#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The main queue, served by `dispatchMain()`: asked last, as the main thread then never
/// returns; the last block prints "done" and exits.
enum MainQueueQuestions {
    static let key = DispatchSpecificKey<String>()

    /// Called on the main thread (main.swift runs there).
    static func ask() -> Never {
        let mainThread = pthread_self()
        @Sendable func onMainThread() -> Bool { pthread_equal(mainThread, pthread_self()) != 0 }
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let trail = EventLog()
        DispatchQueue.main.async {
            answer("main-queue block on the main thread", onMainThread())
            answer("specific value in a main-queue block", DispatchQueue.getSpecific(key: key) as Any)
            DispatchQueue.main.async { trail.append("posted from a main block") }
            trail.append("rest of the main block")
        }
        DispatchQueue.main.async {
            answer("main-queue blocks in order", trail.values)
            DispatchQueue.global().async {
                let ranOnMain = DispatchQueue.main.sync { onMainThread() }
                answer("main.sync from a global queue runs on the main thread", ranOnMain)
                Task { @MainActor in
                    answer("MainActor task on the main thread", onMainThread())
                    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(1)) {
                        answer("main asyncAfter on the main thread", onMainThread())
                        standardError("done\n")
                        exit(0)
                    }
                }
            }
        }
        dispatchMain()
    }
}
