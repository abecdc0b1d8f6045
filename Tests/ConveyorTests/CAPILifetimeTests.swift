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

@testable import ConveyorCore
import Testing

/// The C API's reference counting and the life of C handles (issue 25, findings 2 and 3).
/// The C harness (Tests/CAPI/lifetime-test.c) checks the behaviour from C: objects that
/// outlive their last `dispatch_release` while they have work, and their finalizers.
@Suite struct CAPILifetimeTests {
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    /// A group with a member keeps itself alive after its last C reference, so a second
    /// release finds the box still there, with no reference left.
    @Test func overReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let group = cnv_dispatch_group_create()
            cnv_dispatch_group_enter(group)
            cnv_dispatch_release(group)
            cnv_dispatch_release(group)
        }
        #expect(Self.message(result).contains("dispatch_release of an object with no references left (over-release)"))
    }

    @Test func retainAfterTheLastReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let group = cnv_dispatch_group_create()
            cnv_dispatch_group_enter(group)
            cnv_dispatch_release(group)
            cnv_dispatch_retain(group)
        }
        #expect(Self.message(result).contains("dispatch_retain of an object whose last reference was released (resurrection)"))
    }

    /// A group released with a member is still usable by that member, and leaving it ends
    /// it: its finalizer runs then.
    @Test func aReleasedGroupLivesUntilItsLastMemberLeaves() throws {
        let group = try #require(cnv_dispatch_group_create())
        let flag = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { flag.deallocate() }
        flag.pointee = 0
        let finalized = DispatchSemaphore(value: 0)
        let finalizedBits = UInt(bitPattern: Unmanaged.passRetained(finalized).toOpaque())
        cnv_dispatch_set_context(group, UnsafeMutableRawPointer(bitPattern: finalizedBits))
        cnv_dispatch_set_finalizer_f(group) { raw in
            Unmanaged<DispatchSemaphore>.fromOpaque(raw!).takeRetainedValue().signal()
        }
        cnv_dispatch_group_enter(group)
        cnv_dispatch_release(group)
        #expect(finalized.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(cnv_dispatch_get_context(group) == UnsafeMutableRawPointer(bitPattern: finalizedBits))
        cnv_dispatch_group_leave(group)
        #expect(finalized.wait(timeout: deadline(seconds: 10)) == .success)
    }

    /// The C string of a Swift queue's label (asked for from inside the queue) is the
    /// queue's own: the same pointer each time, while the queue lives.
    @Test func currentLabelOfASwiftQueueIsItsOwn() {
        let queue = DispatchQueue(label: "swift.made")
        let (first, second, text) = queue.sync {
            (cnv_dispatch_queue_get_label(nil), cnv_dispatch_queue_get_label(nil), String(cString: cnv_dispatch_queue_get_label(nil)))
        }
        #expect(first == second)
        #expect(text == "swift.made")
        // Outside the queue: the main queue on the main thread; elsewhere a global queue, as
        // libdispatch answers (the default overcommitting one on a thread Conveyor did
        // not start, a test runner's).
        let outside = String(cString: cnv_dispatch_queue_get_label(nil))
        #expect(ThreadInfo.isMainThread ? outside == "com.apple.main-thread" : outside.hasPrefix("com.apple.root."), "\(outside)")
    }
}
