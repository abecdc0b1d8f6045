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

// How Conveyor's types print: as the toolchain's Dispatch prints its own (`print(queue)`
// gives `Dispatch.DispatchQueue` there), under the name of the module users import,
// `Conveyor`, never that of the module the declarations live in (issue 26).

/// `type`'s fully qualified name with the implementation module's name replaced by the
/// front module's: `Conveyor.DispatchSpecificKey<Swift.Int>`.
func conveyorTypeName(_ type: Any.Type) -> String {
    let name = String(reflecting: type)
    let inner = "ConveyorCore."
    var result = ""
    var rest = Substring(name)
    while let range = rest.firstRange(of: inner) {
        result += rest[..<range.lowerBound]
        result += "Conveyor."
        rest = rest[range.upperBound...]
    }
    return result + rest
}

extension DispatchObject: CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's name, as Dispatch prints its objects: `Conveyor.DispatchQueue`.
    public var description: String { conveyorTypeName(type(of: self)) }
    /// The same as `description`.
    public var debugDescription: String { description }
}

extension DispatchWorkItem: CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's name, as Dispatch prints it: `Conveyor.DispatchWorkItem`.
    public var description: String { conveyorTypeName(type(of: self)) }
    /// The same as `description`.
    public var debugDescription: String { description }
}

extension DispatchSpecificKey: CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's name, as Dispatch prints it: `Conveyor.DispatchSpecificKey<Swift.Int>`.
    public var description: String { conveyorTypeName(type(of: self)) }
    /// The same as `description`.
    public var debugDescription: String { description }
}

extension DispatchQoS: CustomStringConvertible, CustomDebugStringConvertible {
    /// As Dispatch prints it: `DispatchQoS(qosClass: Conveyor.DispatchQoS.QoSClass.default, relativePriority: 0)`.
    public var description: String {
        "DispatchQoS(qosClass: \(conveyorTypeName(QoSClass.self)).\(qosClass), relativePriority: \(relativePriority))"
    }
    /// The same as `description`.
    public var debugDescription: String { description }
}

extension DispatchData: CustomStringConvertible, CustomDebugStringConvertible {
    /// Its size, as Foundation's `Data` prints itself: `5 bytes` (the toolchain's Dispatch
    /// prints its private wrapper type instead).
    public var description: String { "\(count) bytes" }
    /// The same as `description`.
    public var debugDescription: String { description }
}

extension DispatchPredicate: CustomStringConvertible, CustomDebugStringConvertible {
    /// As Dispatch prints it: `onQueue(Conveyor.DispatchQueue)`.
    public var description: String {
        switch self {
        case let .onQueue(queue): "onQueue(\(queue))"
        case let .onQueueAsBarrier(queue): "onQueueAsBarrier(\(queue))"
        case let .notOnQueue(queue): "notOnQueue(\(queue))"
        }
    }
    /// Qualified, as Dispatch's `debugPrint` gives it: `Conveyor.DispatchPredicate.onQueue(Conveyor.DispatchQueue)`.
    public var debugDescription: String { conveyorTypeName(DispatchPredicate.self) + "." + description }
}
