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

/* Conveyor's C API, part 1 of 5: compiler glue, the object handles and time.
 * Written for Conveyor; include <dispatch/dispatch.h> rather than this file. */
#ifndef CONVEYOR_DISPATCH_TYPES_H
#define CONVEYOR_DISPATCH_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <sys/types.h>

/* ---- Compiler glue (our own macros; nothing here is part of the API) ---- */

#ifdef __has_attribute
#define CNV_HAS_ATTRIBUTE(x) __has_attribute(x)
#else
#define CNV_HAS_ATTRIBUTE(x) 0
#endif
#ifdef __has_extension
#define CNV_HAS_EXTENSION(x) __has_extension(x)
#else
#define CNV_HAS_EXTENSION(x) 0
#endif

#ifdef __cplusplus
#define CONVEYOR_C_BEGIN extern "C" {
#define CONVEYOR_C_END }
#else
#define CONVEYOR_C_BEGIN
#define CONVEYOR_C_END
#endif

/* Marks every declaration of the library: default visibility, C linkage. */
#if defined(__GNUC__) || defined(__clang__)
#define CNV_API extern __attribute__((visibility("default")))
#define CNV_NORETURN_FN __attribute__((noreturn))
#define CNV_STATIC_INLINE static __inline__
#else
#define CNV_API extern
#define CNV_NORETURN_FN
#define CNV_STATIC_INLINE static inline
#endif

/* A block argument used only during the call (never copied). */
#if CNV_HAS_ATTRIBUTE(noescape)
#define CNV_NOESCAPE __attribute__((noescape))
#else
#define CNV_NOESCAPE
#endif

/* C only: lets every handle type convert to dispatch_object_t implicitly. */
#ifndef __cplusplus
#define CNV_ANY_HANDLE __attribute__((__transparent_union__))
#else
#define CNV_ANY_HANDLE
#endif

/* The address of one of the library's static objects, as a handle of `type`. */
#ifdef __cplusplus
#define CNV_STATIC_HANDLE(type, symbol) (static_cast<type>(&(symbol)))
#else
#define CNV_STATIC_HANDLE(type, symbol) ((type)&(symbol))
#endif

/* A compiler-only memory barrier (part of libdispatch's public API). */
#if defined(__GNUC__) || defined(__clang__)
#define dispatch_compiler_barrier() __asm__ __volatile__("" : : : "memory")
#else
#define dispatch_compiler_barrier() ((void)0)
#endif

/* ---- Object handles ----
 * Every object is reached through a pointer to an opaque struct. In C, a
 * dispatch_object_t parameter accepts any of them (a transparent union); in C++
 * the structs form a small class hierarchy under dispatch_object_s, so each
 * handle converts to its bases. */
#ifdef __cplusplus
struct dispatch_object_s {
private:
    /* Objects are made by the library only. */
    dispatch_object_s();
    ~dispatch_object_s();
    dispatch_object_s(dispatch_object_s const &);
    dispatch_object_s &operator=(dispatch_object_s const &);
};
typedef struct dispatch_object_s *dispatch_object_t;
#define CNV_HANDLE(name, base) \
    struct name##_s : public base##_s {}; \
    typedef struct name##_s *name##_t
#else
/* Declared at file scope first, so that the names are visible outside the union. */
struct _os_object_s;
struct dispatch_object_s;
struct dispatch_queue_s;
struct dispatch_queue_attr_s;
struct dispatch_group_s;
struct dispatch_source_s;
struct dispatch_mach_s;
struct dispatch_mach_msg_s;
struct dispatch_semaphore_s;
struct dispatch_data_s;
struct dispatch_io_s;
typedef union {
    struct _os_object_s *_os_obj;
    struct dispatch_object_s *_do;
    struct dispatch_queue_s *_dq;
    struct dispatch_queue_attr_s *_dqa;
    struct dispatch_group_s *_dg;
    struct dispatch_source_s *_ds;
    struct dispatch_mach_s *_dm;
    struct dispatch_mach_msg_s *_dmsg;
    struct dispatch_semaphore_s *_dsema;
    struct dispatch_data_s *_ddata;
    struct dispatch_io_s *_dchannel;
} dispatch_object_t CNV_ANY_HANDLE;
/* In C a refined handle (the main queue's, say) is its base type. */
#define CNV_HANDLE(name, base) typedef struct name##_s *name##_t
#endif

CNV_HANDLE(dispatch_queue, dispatch_object);
CNV_HANDLE(dispatch_queue_attr, dispatch_object);
CNV_HANDLE(dispatch_group, dispatch_object);
CNV_HANDLE(dispatch_semaphore, dispatch_object);
CNV_HANDLE(dispatch_source, dispatch_object);
CNV_HANDLE(dispatch_data, dispatch_object);
CNV_HANDLE(dispatch_io, dispatch_object);
#ifdef __cplusplus
CNV_HANDLE(dispatch_queue_global, dispatch_queue);
CNV_HANDLE(dispatch_queue_serial, dispatch_queue);
CNV_HANDLE(dispatch_queue_concurrent, dispatch_queue);
CNV_HANDLE(dispatch_queue_main, dispatch_queue_serial);
#else
typedef dispatch_queue_t dispatch_queue_global_t;
typedef dispatch_queue_t dispatch_queue_serial_t;
typedef dispatch_queue_t dispatch_queue_concurrent_t;
typedef dispatch_queue_t dispatch_queue_main_t;
#endif

/* A source type is a constant record the library owns (DISPATCH_SOURCE_TYPE_*). */
typedef const struct dispatch_source_type_s *dispatch_source_type_t;

/* ---- Work ---- */

/* Work as a C function: called with the context it was submitted with. */
typedef void (*dispatch_function_t)(void *);

#ifdef __BLOCKS__
/* Work as a block (clang -fblocks): no arguments, no result. */
typedef void (^dispatch_block_t)(void);
#endif

/* ---- Quality of service ----
 * Linux has no <sys/qos.h>; these are the classes' usual numeric values. */
#ifndef QOS_CLASS_USER_INTERACTIVE
typedef unsigned int qos_class_t;
#define QOS_CLASS_USER_INTERACTIVE 0x21
#define QOS_CLASS_USER_INITIATED 0x19
#define QOS_CLASS_DEFAULT 0x15
#define QOS_CLASS_UTILITY 0x11
#define QOS_CLASS_BACKGROUND 0x09
#define QOS_CLASS_UNSPECIFIED 0x00
#endif
typedef unsigned int dispatch_qos_class_t;

/* ---- Time ----
 * A dispatch_time_t is an opaque 64-bit point in time, made by dispatch_time
 * (monotonic clock) or dispatch_walltime (the calendar clock). */
typedef uint64_t dispatch_time_t;

#define DISPATCH_TIME_NOW (0ull)
#define DISPATCH_TIME_FOREVER (~0ull)
#define DISPATCH_WALLTIME_NOW (~1ull)

#ifndef NSEC_PER_SEC
#define NSEC_PER_SEC 1000000000ull
#endif
#ifndef NSEC_PER_MSEC
#define NSEC_PER_MSEC 1000000ull
#endif
#ifndef USEC_PER_SEC
#define USEC_PER_SEC 1000000ull
#endif
#ifndef NSEC_PER_USEC
#define NSEC_PER_USEC 1000ull
#endif

struct timespec;

CONVEYOR_C_BEGIN

/* `when` (DISPATCH_TIME_NOW for now) moved by `delta` nanoseconds. */
CNV_API dispatch_time_t dispatch_time(dispatch_time_t when, int64_t delta);

/* A wall-clock time: `when` (NULL for now) moved by `delta` nanoseconds. */
CNV_API dispatch_time_t dispatch_walltime(const struct timespec *when, int64_t delta);

CONVEYOR_C_END

#endif /* CONVEYOR_DISPATCH_TYPES_H */
