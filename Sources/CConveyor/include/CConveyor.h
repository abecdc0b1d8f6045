// CConveyor: thin, non-variadic wrappers for the Linux calls Swift cannot reach
// directly (`syscall` is variadic; Glibc's module lacks the GNU-only entry points).
// Every function returns -1 and leaves errno set on failure, like the call it wraps.
#ifndef CCONVEYOR_H
#define CCONVEYOR_H

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

/// Relaxed atomic access to a pointer-sized slot (ring buffers whose slots a thief may read).
static inline uintptr_t cnv_atomic_load_slot(uintptr_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
static inline void cnv_atomic_store_slot(uintptr_t *slot, uintptr_t value) { __atomic_store_n(slot, value, __ATOMIC_RELAXED); }

static inline uintptr_t cnv_atomic_load_slot_acquire(uintptr_t *slot) { return __atomic_load_n(slot, __ATOMIC_ACQUIRE); }
static inline void cnv_atomic_store_slot_release(uintptr_t *slot, uintptr_t value) { __atomic_store_n(slot, value, __ATOMIC_RELEASE); }

// MARK: threads

int32_t cnv_gettid(void);
/// Sets the calling thread's name (truncated to 15 bytes, as the kernel keeps).
void cnv_set_thread_name(const char *name);
/// CPUs in the calling thread's affinity mask (at least 1).
int32_t cnv_cpu_count(void);
/// Sets the `nice` value of the calling thread only.
int cnv_set_thread_nice(int32_t nice);
int32_t cnv_get_thread_nice(void);
/// Starts a detached thread running `entry(arg)` with the given stack size (0 = default).
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

extern __thread void *cnv_tls_context_slot;
extern __thread void *cnv_tls_frame_slot;
extern __thread long cnv_tls_apply_depth;
/// How many `concurrentPerform` calls the calling thread is inside.
static inline long cnv_tls_get_apply_depth(void) { return cnv_tls_apply_depth; }
static inline void cnv_tls_set_apply_depth(long value) { cnv_tls_apply_depth = value; }
/// The calling thread's runtime context pointer (NULL on threads the runtime does not own).
static inline void *cnv_tls_get_context(void) { return cnv_tls_context_slot; }
static inline void cnv_tls_set_context(void *value) { cnv_tls_context_slot = value; }
/// The calling thread's current-drain frame pointer (which queue it drains now).
static inline void *cnv_tls_get_frame(void) { return cnv_tls_frame_slot; }
static inline void cnv_tls_set_frame(void *value) { cnv_tls_frame_slot = value; }

// MARK: clocks

uint64_t cnv_monotonic_ns(void);
uint64_t cnv_realtime_ns(void);
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

#endif
