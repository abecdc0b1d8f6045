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

// This directory is the ONE copy of the workload source. It is compiled twice: as
// Sources/BenchDispatch/Workloads (against the toolchain's Dispatch) and as
// Sources/BenchConveyor/Workloads (with CONVEYOR defined, against Conveyor); both are
// symbolic links to this directory, so the two modules cannot drift apart.
#if CONVEYOR
import Conveyor
#else
import Dispatch
#endif
import BenchCore

/// The workloads of this module, in the order the harness runs them.
///
/// `BenchDispatch.Catalog` and `BenchConveyor.Catalog` are built from identical source; only
/// the dispatch module each was compiled against differs.
public enum Catalog {
    /// The dispatch module this copy of the workloads was compiled against.
    #if CONVEYOR
    public static let library = "Conveyor"
    #else
    public static let library = "Dispatch"
    #endif

    /// Every workload, in run order: idle-cpu first (while no earlier workload has left
    /// threads behind); many-queues late, because libdispatch answers it with a few hundred
    /// threads that exit about 5 s later and would disturb timing-sensitive workloads
    /// (the memory counts after it are not timing-sensitive); blocking-fan-out
    /// last (it leaves libdispatch with extra threads).
    public static let all: [Workload] = [
        idleCPU,
        serialAsync,
        serialSync,
        groupFanOut,
        queuePingPong,
        concurrentPerformEmpty,
        concurrentPerformWork,
        semaphoreUncontended,
        semaphorePingPong,
        readerWriter,
        readerWriterSync,
        timerLateness,
        qosUrgentStart,
        manyQueues,
        memoryPerIdleQueue,
        memoryPerPendingTask,
        ioFileRandom,
        ioFileStream,
        ioPipe,
        dataAppend,
        blockingFanOut,
    ]
}
