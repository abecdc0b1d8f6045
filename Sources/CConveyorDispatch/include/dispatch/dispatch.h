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

/* <dispatch/dispatch.h> for Conveyor: the portable libdispatch C API, served by
 * libConveyorDispatch. Build with `-I Sources/CConveyorDispatch/include
 * -lConveyorDispatch` (and -fblocks -lBlocksRuntime for the block forms).
 *
 * These headers are Conveyor's own. The declarations follow the libdispatch
 * API so that programs written for it compile unchanged; every name is
 * renamed onto the library's `cnv_` exports first (cnv_names.h). */
#ifndef CONVEYOR_DISPATCH_H
#define CONVEYOR_DISPATCH_H

/* The API version this file follows (libdispatch's numbering). */
#define DISPATCH_API_VERSION 20180109

#include <dispatch/cnv_names.h>

#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include <conveyor/dispatch_types.h>
#include <conveyor/dispatch_macros.h>
#include <conveyor/dispatch_objects.h>
#include <conveyor/dispatch_sync.h>
#include <conveyor/dispatch_sources.h>
#include <conveyor/dispatch_data_io.h>

#endif /* CONVEYOR_DISPATCH_H */
