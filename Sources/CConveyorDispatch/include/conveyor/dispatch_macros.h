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

/* Conveyor's C API, an addendum to part 1: the declaration macros that code written
 * against libdispatch's headers expects to find after including <dispatch/dispatch.h>
 * (its <dispatch/private.h>, for one, declares everything with them). Conveyor's own
 * headers do not use them. Each is only a name for compiler attributes or for a plain
 * declaration, defined only when nobody defined it first, so they cost a program
 * nothing; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_MACROS_H
#define CONVEYOR_DISPATCH_MACROS_H

/* An attribute list when the compiler knows the attributes, else nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define CNV_GNU_ATTRIBUTE(...) __attribute__((__VA_ARGS__))
#else
#define CNV_GNU_ATTRIBUTE(...)
#endif

/* A function of the library (visible, C linkage is the including file's business). */
#ifndef DISPATCH_EXPORT
#define DISPATCH_EXPORT extern CNV_GNU_ATTRIBUTE(visibility("default"))
#endif
/* The function throws no C++ exception. */
#ifndef DISPATCH_NOTHROW
#define DISPATCH_NOTHROW CNV_GNU_ATTRIBUTE(__nothrow__)
#endif
/* Pointer arguments that must not be NULL: all, or the one at a position. */
#ifndef DISPATCH_NONNULL_ALL
#define DISPATCH_NONNULL_ALL CNV_GNU_ATTRIBUTE(__nonnull__)
#endif
#ifndef DISPATCH_NONNULL1
#define DISPATCH_NONNULL1 CNV_GNU_ATTRIBUTE(__nonnull__(1))
#endif
#ifndef DISPATCH_NONNULL2
#define DISPATCH_NONNULL2 CNV_GNU_ATTRIBUTE(__nonnull__(2))
#endif
#ifndef DISPATCH_NONNULL3
#define DISPATCH_NONNULL3 CNV_GNU_ATTRIBUTE(__nonnull__(3))
#endif
#ifndef DISPATCH_NONNULL4
#define DISPATCH_NONNULL4 CNV_GNU_ATTRIBUTE(__nonnull__(4))
#endif
#ifndef DISPATCH_NONNULL5
#define DISPATCH_NONNULL5 CNV_GNU_ATTRIBUTE(__nonnull__(5))
#endif
#ifndef DISPATCH_NONNULL6
#define DISPATCH_NONNULL6 CNV_GNU_ATTRIBUTE(__nonnull__(6))
#endif
/* The result depends on the arguments only (CONST), or also on memory it reads (PURE). */
#ifndef DISPATCH_CONST
#define DISPATCH_CONST CNV_GNU_ATTRIBUTE(__const__)
#endif
#ifndef DISPATCH_PURE
#define DISPATCH_PURE CNV_GNU_ATTRIBUTE(__pure__)
#endif
/* The result is new memory, aliased by nothing else. */
#ifndef DISPATCH_MALLOC
#define DISPATCH_MALLOC CNV_GNU_ATTRIBUTE(__malloc__)
#endif
/* Ignoring the result is a mistake. */
#ifndef DISPATCH_WARN_RESULT
#define DISPATCH_WARN_RESULT CNV_GNU_ATTRIBUTE(__warn_unused_result__)
#endif
/* The caller owns a reference to the result (a note for ARC; nothing in C). */
#ifndef DISPATCH_RETURNS_RETAINED
#define DISPATCH_RETURNS_RETAINED
#endif
#ifndef DISPATCH_INLINE
#define DISPATCH_INLINE CNV_STATIC_INLINE
#endif
#ifndef DISPATCH_ALWAYS_INLINE
#define DISPATCH_ALWAYS_INLINE CNV_GNU_ATTRIBUTE(__always_inline__)
#endif
/* A block argument used only during the call. */
#ifndef DISPATCH_NOESCAPE
#define DISPATCH_NOESCAPE CNV_NOESCAPE
#endif
/* Unmarked pointers between BEGIN and END are non-null, with clang's nullability. */
#ifndef DISPATCH_ASSUME_NONNULL_BEGIN
#if defined(__clang__) && CNV_HAS_EXTENSION(assume_nonnull)
#define CNV_NONNULL_REGION(edge) _Pragma(edge)
#define DISPATCH_ASSUME_NONNULL_BEGIN CNV_NONNULL_REGION("clang assume_nonnull begin")
#define DISPATCH_ASSUME_NONNULL_END CNV_NONNULL_REGION("clang assume_nonnull end")
#else
#define DISPATCH_ASSUME_NONNULL_BEGIN
#define DISPATCH_ASSUME_NONNULL_END
#endif
#endif
/* Marks a declaration missing on Linux: here, the declaration is simply absent from
 * Conveyor's library, so the mark adds nothing. */
#ifndef DISPATCH_LINUX_UNAVAILABLE
#define DISPATCH_LINUX_UNAVAILABLE()
#endif
/* An integer type `name_t` of `type` with the listed constants. */
#ifndef DISPATCH_ENUM
#define DISPATCH_ENUM(name, type, ...) typedef type name##_t; enum { __VA_ARGS__ }
#endif
/* Availability marks on enumerators: platform versions, meaningless on Linux. */
#define CNV_NO_MARK(...)
#ifndef DISPATCH_ENUM_API_AVAILABLE
#define DISPATCH_ENUM_API_AVAILABLE(...) CNV_NO_MARK(__VA_ARGS__)
#endif
#ifndef DISPATCH_ENUM_API_DEPRECATED
#define DISPATCH_ENUM_API_DEPRECATED(...) CNV_NO_MARK(__VA_ARGS__)
#endif
#ifndef DISPATCH_ENUM_API_DEPRECATED_WITH_REPLACEMENT
#define DISPATCH_ENUM_API_DEPRECATED_WITH_REPLACEMENT(...) CNV_NO_MARK(__VA_ARGS__)
#endif
/* A handle type `name_t`: its own opaque struct, or in C its base's handle type (C++
 * gets the subclass relation through the struct hierarchy). */
#ifndef DISPATCH_DECL
#ifdef __cplusplus
#define DISPATCH_DECL(handle) typedef struct handle##_s : public dispatch_object_s {} *handle##_t
#define DISPATCH_DECL_SUBCLASS(handle, parent) typedef struct handle##_s : public parent##_s {} *handle##_t
#else
#define DISPATCH_DECL(handle) typedef struct handle##_s *handle##_t
#define DISPATCH_DECL_SUBCLASS(handle, parent) typedef parent##_t handle##_t
#endif
#endif
/* The library's record of a source type or a data destructor, by name (declared only:
 * a program that uses one Conveyor lacks fails to link, as it should). */
#ifndef DISPATCH_SOURCE_TYPE_DECL
#define DISPATCH_SOURCE_TYPE_DECL(kind) \
    DISPATCH_EXPORT const struct dispatch_source_type_s _dispatch_source_type_##kind
#endif
#ifndef DISPATCH_DATA_DESTRUCTOR_TYPE_DECL
#define DISPATCH_DATA_DESTRUCTOR_TYPE_DECL(which) \
    DISPATCH_EXPORT __typeof__(_dispatch_data_destructor_free) _dispatch_data_destructor_##which
#endif

#endif /* CONVEYOR_DISPATCH_MACROS_H */
