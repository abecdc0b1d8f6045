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

// The first words of the C API's static objects: the main queue, DISPATCH_QUEUE_CONCURRENT,
// the source types and the empty data. The C API's library defines them
// (Sources/CConveyorDispatch/statics.c), the drop-in library defines them again at
// libdispatch's sizes (Sources/CConveyorDropIn/DropIn.c), and the Swift side reads them
// (`CStaticTag`, `CSourceType`) to tell them from its own objects, whose first word is a
// Swift metadata pointer. One definition for all three.
#ifndef CNV_STATIC_OBJECTS_H
#define CNV_STATIC_OBJECTS_H

// The tag: an object's first word.
#define CNV_STATIC_TAG_MAIN_QUEUE 1
#define CNV_STATIC_TAG_QUEUE_ATTRIBUTES 2
#define CNV_STATIC_TAG_SOURCE_TYPE 3
#define CNV_STATIC_TAG_DATA_EMPTY 4
// Every tag is below this; a Swift object's first word never is.
#define CNV_STATIC_TAG_LIMIT 4096

// A source type's number: its second word (0: a type Conveyor does not provide).
#define CNV_SOURCE_TYPE_DATA_ADD 1
#define CNV_SOURCE_TYPE_DATA_OR 2
#define CNV_SOURCE_TYPE_DATA_REPLACE 3
#define CNV_SOURCE_TYPE_MACH_SEND 4
#define CNV_SOURCE_TYPE_MACH_RECV 5
#define CNV_SOURCE_TYPE_MEMORYPRESSURE 6
#define CNV_SOURCE_TYPE_PROC 7
#define CNV_SOURCE_TYPE_READ 8
#define CNV_SOURCE_TYPE_SIGNAL 9
#define CNV_SOURCE_TYPE_TIMER 10
#define CNV_SOURCE_TYPE_VNODE 11
#define CNV_SOURCE_TYPE_WRITE 12

#endif
