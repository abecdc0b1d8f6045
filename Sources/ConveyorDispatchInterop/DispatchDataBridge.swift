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

// Between Conveyor's `DispatchData` and the toolchain's, for code that hands data to a
// library compiled against Dispatch (Foundation's `DataProtocol` and `Data(_:)` take the
// toolchain's type). This module imports both libraries on purpose; it is a separate
// product, so programs that do not need it never link the toolchain's Dispatch through it.
import ConveyorCore
import Dispatch
import Glibc

extension Dispatch.DispatchData {
    /// The bytes of Conveyor's `data`, shared, not copied: each of its regions becomes a
    /// region of this data, and Conveyor's storage of it stays alive until libdispatch
    /// lets the region go.
    public init(_ data: ConveyorCore.DispatchData) {
        var result = Dispatch.DispatchData.empty
        data.forEachRegion { bytes, owner in
            let region = Dispatch.DispatchData(
                bytesNoCopy: bytes,
                deallocator: .custom(nil, { withExtendedLifetime(owner) {} }))
            result.append(region)
        }
        self = result
    }
}

extension ConveyorCore.DispatchData {
    /// A copy of the toolchain's `data`, in one region. (The other way round shares the
    /// bytes; this way copies them once, because libdispatch's Swift API lends a region's
    /// bytes only for the length of a closure.)
    public init(_ data: Dispatch.DispatchData) {
        guard data.count > 0 else {
            self = .empty
            return
        }
        guard let buffer = malloc(data.count) else { fatalError("Conveyor: out of memory copying \(data.count) bytes of DispatchData") }
        data.enumerateBytes { bytes, offset, _ in
            if let base = bytes.baseAddress { memcpy(buffer + offset, base, bytes.count) }
        }
        self.init(bytesNoCopy: UnsafeRawBufferPointer(start: buffer, count: data.count), deallocator: .free)
    }
}
