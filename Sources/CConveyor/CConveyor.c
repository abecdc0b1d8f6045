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

#define _GNU_SOURCE
#include "CConveyor.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/sockios.h>
#include <ucontext.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <fcntl.h>
#include <unistd.h>

int cnv_capi_state_made = 0;   // cnv_capi_state.h

CNV_FAST_TLS void *cnv_tls_context_slot = NULL;
CNV_FAST_TLS void *cnv_tls_frame_slot = NULL;
CNV_FAST_TLS long cnv_tls_apply_depth = 0;
CNV_FAST_TLS void *cnv_tls_job_cache = NULL;

static pthread_key_t cnv_job_cache_key;
static pthread_once_t cnv_job_cache_once = PTHREAD_ONCE_INIT;
static void (*cnv_job_cache_release)(void *) = NULL;

static void cnv_job_cache_destructor(void *cache) {
    cnv_tls_job_cache = NULL;
    void (*release)(void *) = __atomic_load_n(&cnv_job_cache_release, __ATOMIC_ACQUIRE);
    if (cache && release) release(cache);
}

static void cnv_job_cache_make_key(void) {
    pthread_key_create(&cnv_job_cache_key, cnv_job_cache_destructor);
}

void cnv_tls_install_job_cache(void *cache, void (*release)(void *)) {
    __atomic_store_n(&cnv_job_cache_release, release, __ATOMIC_RELEASE);
    pthread_once(&cnv_job_cache_once, cnv_job_cache_make_key);
    pthread_setspecific(cnv_job_cache_key, cache);
    cnv_tls_job_cache = cache;
}

int cnv_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec ts, *tsp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000LL);
        ts.tv_nsec = (long)(timeout_ns % 1000000000LL);
        tsp = &ts;
    }
    return (int)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, tsp, NULL, 0);
}

int cnv_futex_wake(uint32_t *word, int32_t count) {
    return (int)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

int32_t cnv_gettid(void) { return (int32_t)syscall(SYS_gettid); }

void cnv_set_thread_name(const char *name) {
    char buf[16];
    strncpy(buf, name, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    pthread_setname_np(pthread_self(), buf);
}

int32_t cnv_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (int32_t)n : 1;
    }
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

int cnv_pin_to_first_cpu(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof one, &one);
        }
    }
    return -1;
}

int cnv_set_thread_nice(int32_t nice) {
    return setpriority(PRIO_PROCESS, (id_t)cnv_gettid(), nice);
}

int32_t cnv_get_thread_nice(void) {
    errno = 0;
    return (int32_t)getpriority(PRIO_PROCESS, (id_t)cnv_gettid());
}

void cnv_runtime_signal_mask(sigset_t *set) {
    sigfillset(set);
    // The synchronous signals stay deliverable (a fault must reach the faulting thread),
    // and SIGPIPE and SIGPROF too: the same set libdispatch's workers leave unblocked
    // (`_dispatch_sigmask` in its init.c).
    sigdelset(set, SIGILL);
    sigdelset(set, SIGTRAP);
    sigdelset(set, SIGFPE);
    sigdelset(set, SIGBUS);
    sigdelset(set, SIGSEGV);
    sigdelset(set, SIGSYS);
    sigdelset(set, SIGPIPE);
    sigdelset(set, SIGPROF);
}

/// What a thread started by `cnv_thread_start` runs first.
struct cnv_thread_start_context {
    void *(*entry)(void *);
    void *arg;
};

// The Swift runtime's retain (libswiftCore's public ABI): returns its argument.
extern void *swift_retain(void *object);

void *cnv_retain_opaque(void *object) {
    return swift_retain(object);
}

void *cnv_publication_barrier(void *pointer) {
    return pointer;
}

static void *cnv_thread_trampoline(void *raw) {
    struct cnv_thread_start_context context = *(struct cnv_thread_start_context *)raw;
    free(raw);
    // Again, in the thread itself: the sanitizers' pthread_create interceptors put the
    // creator's mask back in the new thread before its entry runs, over the attribute.
    sigset_t mask;
    cnv_runtime_signal_mask(&mask);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    return context.entry(context.arg);
}

int cnv_thread_start(void *(*entry)(void *), void *arg, size_t stack_size) {
    struct cnv_thread_start_context *context = malloc(sizeof *context);
    if (context == NULL) { errno = ENOMEM; return -1; }
    context->entry = entry;
    context->arg = arg;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (stack_size > 0) pthread_attr_setstacksize(&attr, stack_size);
    // Invariant (issue 11, finding 7): every thread Conveyor starts (workers, the event
    // thread, the watchdog) blocks the asynchronous signals, whatever mask its creator
    // had, so a process-directed signal (SIGINT, SIGTERM, ...) goes to one of the
    // program's own threads. Inheriting the creator's mask made a worker's mask depend on
    // which thread happened to start it. The mask is given through the attributes (so it
    // holds from the thread's first instruction) and set again by the thread itself; the
    // creator's own mask is never touched.
    sigset_t mask;
    cnv_runtime_signal_mask(&mask);
    int rc = pthread_attr_setsigmask_np(&attr, &mask);
    pthread_t thread;
    if (rc == 0) rc = pthread_create(&thread, &attr, cnv_thread_trampoline, context);
    pthread_attr_destroy(&attr);
    if (rc != 0) { free(context); errno = rc; return -1; }
    return 0;
}

int cnv_is_main_thread(void) { return cnv_gettid() == (int32_t)getpid(); }

int32_t cnv_process_thread_count(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    int32_t n = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Threads:", 8) == 0) { n = (int32_t)strtol(line + 8, NULL, 10); break; }
    }
    fclose(f);
    return n;
}

// Spin advice: this thread's calls, calls left that advise against spinning, its
// involuntary context switches at the last sample (-1: not sampled yet), and how many
// samples in a row saw them grow.
static CNV_FAST_TLS uint32_t spin_calls = 0;
static CNV_FAST_TLS uint32_t spin_off = 0;
static CNV_FAST_TLS long spin_nivcsw = -1;
static CNV_FAST_TLS uint32_t spin_preempted_samples = 0;
// Until when (monotonic ns) a thread seen descheduled in mid-spin spins no more; 0: not.
static CNV_FAST_TLS uint64_t spin_descheduled_until = 0;
// When (monotonic ns) it was last seen descheduled in mid-spin; 0: never.
static CNV_FAST_TLS uint64_t spin_last_descheduled = 0;
#define CNV_SPIN_DESCHEDULED_PAUSE_NS 50000000ULL
// Samples in a row that must see involuntary switches (see cnv_spin_advised in the header).
#define CNV_SPIN_PREEMPTED_SAMPLES 4
#define CNV_SPIN_DESCHEDULED_RECENT_NS 1000000000ULL

long cnv_thread_involuntary_switches(void) {
    struct rusage usage;
    return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_nivcsw : -1;
}

bool cnv_spin_advised(void) {
    if ((++spin_calls & 63) == 0) {
        long switches = cnv_thread_involuntary_switches();
        if (switches >= 0) {
            if (spin_nivcsw >= 0 && switches != spin_nivcsw) {
                if (++spin_preempted_samples >= CNV_SPIN_PREEMPTED_SAMPLES) spin_off = 1024;
            } else {
                spin_preempted_samples = 0;
            }
            spin_nivcsw = switches;
        }
    }
    if (spin_descheduled_until != 0) {
        if (cnv_monotonic_ns() < spin_descheduled_until) return false;
        spin_descheduled_until = 0;
    }
    if (spin_off == 0) return true;
    spin_off -= 1;
    return false;
}

bool cnv_spin_recently_descheduled(void) {
    if (spin_preempted_samples != 0) return true;
    return spin_last_descheduled != 0 && cnv_monotonic_ns() - spin_last_descheduled < CNV_SPIN_DESCHEDULED_RECENT_NS;
}

void cnv_spin_note_descheduled(void) {
    uint64_t now = cnv_monotonic_ns();
    spin_last_descheduled = now;
    spin_descheduled_until = now + CNV_SPIN_DESCHEDULED_PAUSE_NS;
}

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t cnv_monotonic_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
uint64_t cnv_realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }
uint64_t cnv_boottime_ns(void) { return clock_ns(CLOCK_BOOTTIME); }
uint64_t cnv_process_cpu_ns(void) { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

int cnv_eventfd(unsigned int initial, int nonblocking) {
    return eventfd(initial, EFD_CLOEXEC | (nonblocking ? EFD_NONBLOCK : 0));
}

int cnv_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

uint64_t cnv_eventfd_drain(int fd) {
    uint64_t value = 0;
    if (read(fd, &value, sizeof value) != sizeof value) return 0;
    return value;
}

int cnv_timerfd_create(int realtime) {
    return timerfd_create(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int cnv_timerfd_arm_absolute(int fd, uint64_t deadline_ns) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (deadline_ns != 0) {
        spec.it_value.tv_sec = (time_t)(deadline_ns / 1000000000ULL);
        spec.it_value.tv_nsec = (long)(deadline_ns % 1000000000ULL);
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int cnv_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cnv_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    int kop = op == 1 ? EPOLL_CTL_ADD : op == 2 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    return epoll_ctl(epfd, kop, fd, &ev);
}

int cnv_epoll_wait(int epfd, uint32_t *events_out, uint64_t *data_out, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        events_out[i] = evs[i].events;
        data_out[i] = evs[i].data.u64;
    }
    return n;
}

int cnv_signalfd(int fd, const sigset_t *mask) {
    return signalfd(fd, mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

int cnv_pidfd_open(int32_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cnv_pipe2(int fds[2], int nonblocking) {
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}

int cnv_errno(void) { return errno; }

// MARK: dispatch sources

int64_t cnv_readable_bytes(int fd) {
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) != 0) return -1;
    return n;
}

int64_t cnv_writable_bytes(int fd) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    int queued = 0;
    if (S_ISFIFO(sb.st_mode)) {
        int capacity = fcntl(fd, F_GETPIPE_SZ);
        if (capacity < 0 || ioctl(fd, FIONREAD, &queued) != 0) return -1;
        return capacity > queued ? capacity - queued : 0;
    }
    if (S_ISSOCK(sb.st_mode)) {
        int buffer = 0;
        socklen_t length = sizeof buffer;
        if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, &length) != 0) return -1;
        if (ioctl(fd, SIOCOUTQ, &queued) != 0) queued = 0;
        return buffer > queued ? buffer - queued : 0;
    }
    return -1;
}

int64_t cnv_file_remaining(int fd) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    off_t offset = lseek(fd, 0, SEEK_CUR);
    if (offset < 0) return -1;
    return sb.st_size > offset ? (int64_t)(sb.st_size - offset) : 0;
}

int cnv_file_size_and_links(int fd, uint64_t *size, uint64_t *links) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    *size = (uint64_t)sb.st_size;
    *links = (uint64_t)sb.st_nlink;
    return 0;
}

int cnv_block_signal_noting(int signo) {
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, signo);
    int rc = pthread_sigmask(SIG_BLOCK, &set, &old);
    if (rc != 0) { errno = rc; return -1; }
    return sigismember(&old, signo) == 1 ? 1 : 0;
}

int cnv_block_signal(int signo) {
    return cnv_block_signal_noting(signo) < 0 ? -1 : 0;
}

int cnv_unblock_signal(int signo) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signo);
    int rc = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    if (rc != 0) { errno = rc; return -1; }
    return 0;
}

static pthread_t cnv_signal_reader;   // written once, before cnv_signal_reader_known
static int cnv_signal_reader_known = 0;
static struct sigaction cnv_signal_previous[NSIG];
static int cnv_signal_replaced[NSIG];

void cnv_signal_set_reader(void) {
    if (__atomic_load_n(&cnv_signal_reader_known, __ATOMIC_ACQUIRE)) return;   // the event thread never changes
    cnv_signal_reader = pthread_self();
    __atomic_store_n(&cnv_signal_reader_known, 1, __ATOMIC_RELEASE);
}

// The forwarder: a signal taken the ordinary way by a thread that has it unblocked (a
// program thread; Conveyor's own threads block every asynchronous signal) is sent on to
// the event thread, which blocks it, so it waits there for the signalfd. The thread's mask
// is left as it was (sigreturn restores it), as libdispatch's handler leaves it: blocking
// it there for good lost every later raise() from that thread, and kept the program's own
// handler from ever running there again after the source's cancel. A handler the program
// had installed before the first source runs too, after the forwarding (kqueue on Darwin
// shows a signal to both a source and the handler).
static void cnv_signal_forward(int signo, siginfo_t *info, void *context) {
    int saved = errno;
    if (__atomic_load_n(&cnv_signal_reader_known, __ATOMIC_ACQUIRE)) pthread_kill(cnv_signal_reader, signo);
    const struct sigaction *previous = &cnv_signal_previous[signo];
    if (previous->sa_flags & SA_SIGINFO) {
        if (previous->sa_sigaction != NULL) {
            errno = saved;
            previous->sa_sigaction(signo, info, context);
            saved = errno;
        }
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        errno = saved;
        previous->sa_handler(signo);
        saved = errno;
    }
    errno = saved;
}

int cnv_signal_forward_install(int signo) {
    if (signo <= 0 || signo >= NSIG) { errno = EINVAL; return -1; }
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0) return -1;
    struct sigaction forward;
    memset(&forward, 0, sizeof forward);
    forward.sa_sigaction = cnv_signal_forward;
    forward.sa_flags = SA_SIGINFO | SA_RESTART;
    // SIGCHLD: what the disposition said about children is kept. SIG_IGN (or
    // SA_NOCLDWAIT) means the kernel reaps them; the forwarder asks for the same with
    // SA_NOCLDWAIT, which still sends SIGCHLD for the source. SA_NOCLDSTOP is kept too.
    // (A known Linux fault of libdispatch, not copied: its handler replaces SIG_IGN with
    // plain flags, so children become zombies while a SIGCHLD source exists.)
    if (signo == SIGCHLD) {
        forward.sa_flags |= current.sa_flags & (SA_NOCLDWAIT | SA_NOCLDSTOP);
        if (current.sa_handler == SIG_IGN) forward.sa_flags |= SA_NOCLDWAIT;
    }
    sigemptyset(&forward.sa_mask);
    // The previous disposition is in place before the forwarder can run and read it.
    cnv_signal_previous[signo] = current;
    if (sigaction(signo, &forward, NULL) != 0) return -1;
    cnv_signal_replaced[signo] = 1;
    return 1;
}

int cnv_signal_forward_restore(int signo) {
    if (signo <= 0 || signo >= NSIG || !cnv_signal_replaced[signo]) return 0;
    cnv_signal_replaced[signo] = 0;
    // Invariant (issue 11, finding 6): only Conveyor's own forwarder is ever taken away.
    // If the program installed a disposition of its own while the source existed, that
    // one is the program's wish and stays (libdispatch never restores at all).
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0) return -1;
    if (!(current.sa_flags & SA_SIGINFO) || current.sa_sigaction != cnv_signal_forward) return 0;
    return sigaction(signo, &cnv_signal_previous[signo], NULL);
}

int cnv_signalfd_set(int fd, const int32_t *signals, int32_t count) {
    sigset_t set;
    sigemptyset(&set);
    for (int32_t i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return signalfd(fd, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int32_t cnv_signalfd_read(int fd, int32_t *signals, int32_t max) {
    struct signalfd_siginfo info[16];
    if (max > 16) max = 16;
    ssize_t n = read(fd, info, sizeof info[0] * (size_t)max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    int32_t count = (int32_t)(n / (ssize_t)sizeof info[0]);
    for (int32_t i = 0; i < count; i++) signals[i] = (int32_t)info[i].ssi_signo;
    return count;
}

int cnv_inotify_watch_fd(int inotify_fd, int fd, uint32_t mask, int add) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return inotify_add_watch(inotify_fd, path, mask | (add ? IN_MASK_ADD : 0));
}
