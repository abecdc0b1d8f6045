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

import CConveyor

/// A +1 reference to `object` for a pointer that another thread may take, and release, as
/// soon as it is published (a ring slot and its tail, a LIFO slot, a queue's `enqueued`
/// bit whose drain ends with a release).
///
/// `Unmanaged.passRetained` is not enough there. While the caller keeps `object` alive,
/// Swift's optimizer may move that retain to any point before the caller's own reference
/// ends, atomic stores notwithstanding, and it did: the ring push stored the job and
/// released the ring's tail, then retained the job. A thief that stole the job, ran it
/// and released it in between (the pusher preempted there) freed it, and the late retain
/// crashed in the Swift runtime (the composition tester, `--thread-cap 6`, seed
/// 808078996; `objdump -d` of `WorkerPool.pushLocally` showed the order). The retain here
/// is a call into C that the optimizer cannot see into, and the pointer it returns is the
/// one published: neither can move before the other.
@inline(__always)
func retainedForPublishing<T: AnyObject>(_ object: T) -> Unmanaged<T> {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(cnv_retain_opaque(Unmanaged.passUnretained(object).toOpaque())!))
}
