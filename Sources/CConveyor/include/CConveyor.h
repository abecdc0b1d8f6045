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

// CConveyor: thin, non-variadic wrappers for the Linux calls Swift cannot reach
// directly (`syscall` is variadic; Glibc's module lacks the GNU-only entry points).
// Every function returns -1 and leaves errno set on failure, like the call it wraps.
#ifndef CCONVEYOR_H
#define CCONVEYOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <signal.h>
#include <time.h>

// MARK: futex

/// Waits while `*word == expected`. `timeout_ns < 0` waits forever; the timeout is relative.
/// Returns 0 when woken (or spuriously), -1 with errno EAGAIN / ETIMEDOUT / EINTR.
int cnv_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns);
/// Wakes up to `count` waiters on `word`; returns how many were woken.
int cnv_futex_wake(uint32_t *word, int32_t count);

/// Atomic operations on a raw 32-bit futex word (Swift's `Atomic` has no stable address).
static inline uint32_t cnv_atomic_load_u32(uint32_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
static inline void cnv_atomic_store_u32(uint32_t *word, uint32_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }
static inline uint32_t cnv_atomic_exchange_u32(uint32_t *word, uint32_t value) { return __atomic_exchange_n(word, value, __ATOMIC_ACQ_REL); }
static inline uint32_t cnv_atomic_fetch_add_u32(uint32_t *word, uint32_t value) { return __atomic_fetch_add(word, value, __ATOMIC_ACQ_REL); }
static inline int cnv_atomic_cas_u32(uint32_t *word, uint32_t *expected, uint32_t desired) {
    return __atomic_compare_exchange_n(word, expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/// Retains a Swift object (returns it) through a call the Swift optimizer cannot see into:
/// the retain is done before anything after the call, such as the store that publishes
/// the pointer to a thread that may release it at once (`retainedForPublishing` in Swift).
void *cnv_retain_opaque(void *object);

/// Returns `pointer`, through a call the Swift optimizer cannot see into: a retain of the
/// object it points to that the code before asked for cannot move past this call (which,
/// for all the optimizer knows, might release it). For the pushes that take a job
/// `consuming` and publish it to threads that may release it at once (`JobList.push`,
/// `WorkerPool.pushInjected`): a caller's copy of a job it held +0 is retained first.
void *cnv_publication_barrier(void *pointer);

/// Relaxed atomic access to a pointer-sized slot (ring buffers whose slots a thief may read).
static inline uintptr_t cnv_atomic_load_slot(uintptr_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
static inline void cnv_atomic_store_slot(uintptr_t *slot, uintptr_t value) { __atomic_store_n(slot, value, __ATOMIC_RELAXED); }

static inline uintptr_t cnv_atomic_load_slot_acquire(uintptr_t *slot) { return __atomic_load_n(slot, __ATOMIC_ACQUIRE); }
static inline void cnv_atomic_store_slot_release(uintptr_t *slot, uintptr_t value) { __atomic_store_n(slot, value, __ATOMIC_RELEASE); }

// MARK: group counter

/// A dispatch group's state word (as libdispatch keeps it): the low 32 bits hold the
/// number of tasks *negated*, the high 32 bits the generation. `enter` subtracts one from
/// the low half alone (a 32-bit operation: 0 wraps to 0xFFFFFFFF without borrowing from
/// the generation); `leave` adds the tasks leaving to the whole word, so the leave that
/// empties the group (low half back to 0) carries into the generation in the same atomic
/// step. Both are single read-modify-writes, no compare-and-swap loop on a line the
/// submitting thread and every worker write. Mixed-size atomics on one word, as
/// libdispatch uses them; little-endian only (the low half is the first four bytes).
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cnv_group_*: the low half of the state word must be its first four bytes"
#endif
/// Counts one task in; returns the low half before (0: the group was empty).
static inline uint32_t cnv_group_enter(uint64_t *state) {
    return __atomic_fetch_sub((uint32_t *)state, 1, __ATOMIC_ACQ_REL);
}
/// Counts `count` tasks out in one step (1, or a worker's combined leaves); returns the
/// whole word before. Its low half is `-(tasks in)`: the step emptied the group (and
/// started the next generation) when the tasks in were `count`, and was unbalanced when
/// they were fewer. Sequentially consistent: pairs with `DispatchGroup.waitUntilEmpty`,
/// which counts itself a waiter and then loads the word (the emptying leave then reads
/// the waiter count and wakes).
static inline uint64_t cnv_group_leave(uint64_t *state, uint32_t count) {
    return __atomic_fetch_add(state, (uint64_t)count, __ATOMIC_SEQ_CST);
}
static inline uint64_t cnv_group_load(uint64_t *state) { return __atomic_load_n(state, __ATOMIC_SEQ_CST); }

// MARK: threads

int32_t cnv_gettid(void);
/// Sets the calling thread's name (truncated to 15 bytes, as the kernel keeps).
void cnv_set_thread_name(const char *name);
/// CPUs in the calling thread's affinity mask (at least 1).
int32_t cnv_cpu_count(void);
/// Restricts the calling thread (and threads it creates later) to the first CPU of its
/// affinity mask; for tests that need a one-CPU pool.
int cnv_pin_to_first_cpu(void);
/// Sets the `nice` value of the calling thread only.
int cnv_set_thread_nice(int32_t nice);
int32_t cnv_get_thread_nice(void);
/// Fills `set` with the signals Conveyor's threads block: every asynchronous signal
/// (all but SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE, SIGPROF).
void cnv_runtime_signal_mask(sigset_t *set);
/// Starts a detached thread running `entry(arg)` with the given stack size (0 = default).
/// The thread starts with `cnv_runtime_signal_mask` blocked, whatever the caller blocks.
int cnv_thread_start(void *(*entry)(void *), void *arg, size_t stack_size);
/// Whether the calling thread is the process's main thread.
int cnv_is_main_thread(void);
/// Number of threads in this process (from /proc/self/status), or -1.
int32_t cnv_process_thread_count(void);
/// A spin-wait hint (`pause` on x86).
static inline void cnv_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// MARK: thread-local slots (fast TLS for the runtime)

// Initial-exec: one %fs-relative load instead of a call to __tls_get_addr per access
// (2.6% of group-fan-out's submitting thread in perf). Conveyor is linked into the
// program or into a library loaded at start-up, which is what this model needs; glibc's
// surplus static TLS also covers a later dlopen of these 56 bytes (with the spin advice).
#define CNV_FAST_TLS __thread __attribute__((tls_model("initial-exec")))
extern CNV_FAST_TLS void *cnv_tls_context_slot;
extern CNV_FAST_TLS void *cnv_tls_frame_slot;
extern CNV_FAST_TLS long cnv_tls_apply_depth;
extern CNV_FAST_TLS void *cnv_tls_job_cache;
/// The calling thread's cache of recycled jobs (NULL until installed).
static inline void *cnv_tls_get_job_cache(void) { return cnv_tls_job_cache; }
/// Installs the calling thread's job cache; `release(cache)` runs when the thread exits.
void cnv_tls_install_job_cache(void *cache, void (*release)(void *));
/// How many `concurrentPerform` calls the calling thread is inside.
static inline long cnv_tls_get_apply_depth(void) { return cnv_tls_apply_depth; }
static inline void cnv_tls_set_apply_depth(long value) { cnv_tls_apply_depth = value; }
/// The calling thread's runtime context pointer (NULL on threads the runtime does not own).
static inline void *cnv_tls_get_context(void) { return cnv_tls_context_slot; }
static inline void cnv_tls_set_context(void *value) { cnv_tls_context_slot = value; }
/// The calling thread's current-drain frame pointer (which queue it drains now).
static inline void *cnv_tls_get_frame(void) { return cnv_tls_frame_slot; }
static inline void cnv_tls_set_frame(void *value) { cnv_tls_frame_slot = value; }

// MARK: spin advice (a busy machine)

/// Whether a waiter on the calling thread should spin before it sleeps (issue 24). A
/// spin pays when the thread it waits for is running on another CPU; on a busy machine
/// that thread is often not running, and the spin takes the CPU it needs (semaphore
/// ping-pong with every CPU busy: 8.4–9.1 µs a round trip with the spin, 3.3–3.5 without,
/// libdispatch 3.3–3.4). The sign of a busy machine used here is the calling thread's own
/// involuntary context switches (`getrusage(RUSAGE_THREAD)`, 0.2 µs, sampled every 64th
/// call): when they grew in four samples in a row, the next 1,024 calls advise against
/// spinning. A quiet machine shows the sign too, most likely when the kernel runs both
/// partners on one CPU (a woken thread preempting its waker): quiet semaphore ping-pong
/// went from 2.4–2.5 to 3.8–4.1 µs a round trip (libdispatch 22–28). With two samples
/// that was common enough that in some processes of an unmodified program under the
/// drop-in library no worker watched a `Task.sleep`'s timer on a quiet machine (p50
/// 35–47 µs late in 17 processes of 24; four samples: 3 of 20, the others 6.9–13.6 µs),
/// while on a busy one four are as quick to tell (semaphore ping-pong beside two burning
/// threads: 3.64–3.75 µs a round trip, two samples: 3.56–3.58). A thread seen
/// descheduled in mid-spin is advised against spinning for 50 ms
/// (`cnv_spin_note_descheduled`).
bool cnv_spin_advised(void);
/// A spinning caller saw itself descheduled in mid-spin (a gap between two of its looks
/// far longer than a look takes): for the next 50 ms `cnv_spin_advised` advises this
/// thread against spinning. The sign the involuntary switches give misses a thread that
/// spins between rare calls: a worker watching timers 50 µs apart made one call per
/// timer, was preempted for a time slice about every 8 ms, and two samples 64 calls
/// apart seldom both saw it (issue 24).
void cnv_spin_note_descheduled(void);
/// Whether the calling thread has shown a sign of a busy machine lately, although
/// spinning may be advised again: its last sample of involuntary switches grew, or it
/// was seen descheduled in mid-spin within the last second (`cnv_spin_note_descheduled`).
bool cnv_spin_recently_descheduled(void);
/// The calling thread's involuntary context switches so far (`ru_nivcsw`), -1 on failure.
long cnv_thread_involuntary_switches(void);

// MARK: clocks

uint64_t cnv_monotonic_ns(void);
uint64_t cnv_realtime_ns(void);
/// CLOCK_BOOTTIME: monotonic, and counting while the machine sleeps.
uint64_t cnv_boottime_ns(void);
/// Process CPU time (user + system) in nanoseconds.
uint64_t cnv_process_cpu_ns(void);

// MARK: event fds

int cnv_eventfd(unsigned int initial, int nonblocking);
int cnv_eventfd_signal(int fd);
/// Reads and resets the counter; returns the value or 0 if none.
uint64_t cnv_eventfd_drain(int fd);
int cnv_timerfd_create(int realtime);
/// Arms a timerfd at an absolute time (ns on its clock); 0 disarms.
int cnv_timerfd_arm_absolute(int fd, uint64_t deadline_ns);
int cnv_epoll_create(void);
/// `op`: 1 add, 2 delete, 3 modify. `events` uses EPOLLIN=1, EPOLLOUT=4, EPOLLET bits etc.
int cnv_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for events; fills `events_out`/`data_out` (parallel arrays). Returns count, -1 on error.
int cnv_epoll_wait(int epfd, uint32_t *events_out, uint64_t *data_out, int max, int timeout_ms);
int cnv_signalfd(int fd, const sigset_t *mask);
int cnv_pidfd_open(int32_t pid);
int cnv_pipe2(int fds[2], int nonblocking);
int cnv_errno(void);

// MARK: dispatch sources

/// Bytes that can be read from `fd` now (FIONREAD), or -1 when the fd cannot tell.
int64_t cnv_readable_bytes(int fd);
/// An estimate of the bytes `fd` takes without blocking: a pipe's capacity minus what it
/// holds, a socket's send buffer minus its unsent bytes; -1 when the fd cannot tell.
int64_t cnv_writable_bytes(int fd);
/// Bytes between the file offset of `fd` and the end of the file, or -1.
int64_t cnv_file_remaining(int fd);
/// Size and link count of the file open as `fd` (fstat). Returns 0, or -1 with errno.
int cnv_file_size_and_links(int fd, uint64_t *size, uint64_t *links);
/// Blocks `signo` in the calling thread. Returns 0 or -1.
int cnv_block_signal(int signo);
/// Records the calling thread as the one stray signals are forwarded to (the thread that
/// reads the signalfd; it must block those signals itself).
void cnv_signal_set_reader(void);
/// Blocks `signo` in the calling thread if it was not; returns 1 if it was already
/// blocked, 0 if this call blocked it, -1 on error.
int cnv_block_signal_noting(int signo);
/// Unblocks `signo` in the calling thread. Returns 0 or -1.
int cnv_unblock_signal(int signo);
/// Installs, for `signo`, a handler that catches the signal in a thread that does not
/// block it and sends it on to the reader thread, where the signalfd sees it; the thread's
/// mask is left as it was. A handler the program had installed runs too, after the
/// forwarding. Returns 1 when installed, -1 on error. The previous disposition is
/// remembered for the restore.
int cnv_signal_forward_install(int signo);
/// Puts back the disposition that `cnv_signal_forward_install` replaced, if it did and the
/// forwarder is still installed (a disposition the program set meanwhile stays). For
/// SIGCHLD the forwarder keeps the reaping the replaced disposition asked for.
int cnv_signal_forward_restore(int signo);
/// Creates (`fd` = -1) or updates a non-blocking signalfd for `count` signals.
int cnv_signalfd_set(int fd, const int32_t *signals, int32_t count);
/// Reads queued signals from a signalfd into `signals` (their numbers). Returns how many
/// (0 when none is pending), or -1.
int32_t cnv_signalfd_read(int fd, int32_t *signals, int32_t max);
/// Watches the file open as `fd` (through /proc/self/fd) on inotify instance `inotify_fd`.
/// `add` ORs `mask` into an existing watch instead of replacing it. Returns the watch
/// descriptor or -1.
int cnv_inotify_watch_fd(int inotify_fd, int fd, uint32_t mask, int add);

/// The state letter of thread `tid` of this process as the kernel shows it in
/// /proc/self/task/<tid>/stat ('R' running or runnable, 'S' sleeping, 'D' in an
/// uninterruptible wait, ...), or 0 when it cannot be read.
char cnv_thread_run_state(int32_t tid);
/// Installs (once) a pthread_atfork child handler that records that this process is the
/// child of a fork(): the pool's threads do not exist there.
void cnv_fork_guard_arm(void);
/// 1 in the child of a fork() made after `cnv_fork_guard_arm`, else 0.
int cnv_is_forked_child(void);
/// Whether cnv_fork_guard_arm has run (the pool started) in this process.
int cnv_fork_guard_armed(void);

/// Gives up the CPU to another runnable thread (sched_yield).
void cnv_thread_yield(void);

// The first words of the C API's static objects, for the Swift side (`CStaticTag`).
#include "cnv_static_objects.h"
#include "cnv_capi_state.h"

#endif
