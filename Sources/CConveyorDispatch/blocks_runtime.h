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

// What this target needs from the BlocksRuntime: the copy and release calls (<Block.h>
// declares them, but the toolchain keeps that header beside its Swift modules, out of a C
// compiler's search path) and the stack-block class, for the blocks made by hand in
// block_objects.c. Not part of the public headers.
#ifndef CONVEYOR_BLOCKS_RUNTIME_H
#define CONVEYOR_BLOCKS_RUNTIME_H

void *_Block_copy(const void *block);
void _Block_release(const void *block);
extern void *_NSConcreteStackBlock[32];
#define Block_copy(block) ((__typeof(block))_Block_copy((const void *)(block)))
#define Block_release(block) _Block_release((const void *)(block))

/// The work item behind a block made by dispatch_block_create, or NULL for any other block.
void *cnv_block_item(const void *block);

#endif
