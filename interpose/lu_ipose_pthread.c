/*
 * pthread, semaphore, sleep, exit and C11 threads interposition.
 *
 * liblineup.so is searched before libc, so these exported definitions win for
 * every object in the process. On a controlled thread of a running execution
 * (lu_sched_self() >= 0) each call becomes a call into the scheduler's model;
 * on any other thread it goes to the real libc function, found with
 * dlsym(RTLD_NEXT). The list of calls, their real-function slots and their
 * trace labels come from lu_ipose.def.
 *
 * Under control the real libc objects are never locked or waited on: the model
 * (keyed by address) holds the state, and the memory stays a valid libc object
 * in its initial state for uncontrolled use. *_init and *_destroy therefore
 * call both.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <threads.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "lu_ipose.h"
#include "lu_sched.h"

#define LU_IPOSE_EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(pthread_t) == sizeof(uint64_t), "fake thread handles need a 64-bit pthread_t");
_Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "thrd_t and pthread_t share the fake handles");
_Static_assert(sizeof(tss_t) == sizeof(pthread_key_t), "tss_t and pthread_key_t share the key encoding");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag is a pthread_once_t");

/* ---- generated from lu_ipose.def: labels, real-function slots ---- */

/* LU_IPOSE_L_PTHREAD_FIRST (1000) comes from lu_ipose.h: 0..999 are the
 * TSan interposer's. */
enum lu_ipose_pthread_label {
    LU_IPOSE_L_PTHREAD_BASE_ = LU_IPOSE_L_PTHREAD_FIRST - 1,
#define LU_IPOSE_FN(ret, name, version, params, args, printed) LU_IPOSE_L_##name,
#define LU_IPOSE_LABEL(name, printed) LU_IPOSE_L_##name,
#include "lu_ipose.def"
    LU_IPOSE_L_PTHREAD_END
};

static const char *const lu_ipose_label_names[] = {
#define LU_IPOSE_FN(ret, name, version, params, args, printed) printed,
#define LU_IPOSE_LABEL(name, printed) printed,
#include "lu_ipose.def"
};

_Static_assert(sizeof lu_ipose_label_names / sizeof lu_ipose_label_names[0] ==
                   LU_IPOSE_L_PTHREAD_END - LU_IPOSE_L_PTHREAD_FIRST,
               "one label name per intercepted call");

/* NULL outside this layer's range, so that a combined lookup can ask the
 * next layer. */
const char *lu__ipose_pthread_label_name(uint16_t label)
{
    if (label < LU_IPOSE_L_PTHREAD_FIRST || label >= LU_IPOSE_L_PTHREAD_END)
        return NULL;
    return lu_ipose_label_names[label - LU_IPOSE_L_PTHREAD_FIRST];
}

enum lu_ipose_real_id {
#define LU_IPOSE_FN(ret, name, version, params, args, printed) LU_IPOSE_R_##name,
#define LU_IPOSE_UNSUP(ret, name, version, params, args) LU_IPOSE_R_##name,
#include "lu_ipose.def"
    LU_IPOSE_R_COUNT
};

#define LU_IPOSE_FN(ret, name, version, params, args, printed) typedef ret(*lu_ipose_fn_##name) params;
#define LU_IPOSE_UNSUP(ret, name, version, params, args) typedef ret(*lu_ipose_fn_##name) params;
#include "lu_ipose.def"

static const struct {
    const char *name;
    const char *version;
} lu_ipose_syms[LU_IPOSE_R_COUNT] = {
#define LU_IPOSE_FN(ret, name, version, params, args, printed) [LU_IPOSE_R_##name] = {#name, version},
#define LU_IPOSE_UNSUP(ret, name, version, params, args) [LU_IPOSE_R_##name] = {#name, version},
#include "lu_ipose.def"
};

static void *lu_ipose_real_tab[LU_IPOSE_R_COUNT];

static void *lu_ipose_lookup(int id)
{
    void *p = NULL;
    if (lu_ipose_syms[id].version)
        p = dlvsym(RTLD_NEXT, lu_ipose_syms[id].name, lu_ipose_syms[id].version);
    if (!p)
        p = dlsym(RTLD_NEXT, lu_ipose_syms[id].name);
    return p;
}

/* Racing resolvers store the same pointer, so a plain atomic store is enough;
 * no lock, so it is safe in constructors and before threads exist. */
__attribute__((noinline, cold)) static void *lu_ipose_resolve_slow(int id)
{
    void *p = lu_ipose_lookup(id);
    if (!p) {
        /* lineup was built against another C library than the one loaded */
        char buf[160];
        snprintf(buf, sizeof buf, "the C library has no %s", lu_ipose_syms[id].name);
        lu_sched_bug(__FILE__, __LINE__, buf);
    }
    __atomic_store_n(&lu_ipose_real_tab[id], p, __ATOMIC_RELEASE);
    return p;
}

static inline void *lu_ipose_real(int id)
{
    void *p = __atomic_load_n(&lu_ipose_real_tab[id], __ATOMIC_ACQUIRE);
    return __builtin_expect(p != NULL, 1) ? p : lu_ipose_resolve_slow(id);
}

/* Resolve everything before any execution, so that controlled threads never
 * enter the dynamic linker. Symbols this libc lacks stay NULL here and only
 * fail if someone calls them. */
static void lu__ipose_take_signal(int sig);
static bool lu__ipose_deliver(int sig, int code);
static bool lu__ipose_handled(int sig);
/* > 0 while a call that delivers signals where the schedule decides runs */
static __thread int lu__ipose_sync __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void lu_ipose_resolve_all(void)
{
    lu_sched_set_signal_deliver(lu__ipose_take_signal);
    /* each controlled thread's own, under a shared TLS too */
    if (lu_sched_tls_keep(&lu__ipose_sync, sizeof lu__ipose_sync) != 0)
        lu_sched_bug(__FILE__, __LINE__, "lu_sched_tls_keep: the table is full");
    for (int id = 0; id < LU_IPOSE_R_COUNT; id++)
        if (!__atomic_load_n(&lu_ipose_real_tab[id], __ATOMIC_ACQUIRE)) {
            void *p = lu_ipose_lookup(id);
            if (p)
                __atomic_store_n(&lu_ipose_real_tab[id], p, __ATOMIC_RELEASE);
        }
}

#define LU_IPOSE_REAL(name) ((lu_ipose_fn_##name)lu_ipose_real(LU_IPOSE_R_##name))
#define LU_IPOSE_L(name) ((uint16_t)LU_IPOSE_L_##name)

/* A call made in the handler of a signal that arrived at a time lineup does
 * not control (lu_sched_async_enter): those that touch no model (signals,
 * masks, dispositions, sleeps, scheduling attributes) go to libc as for
 * uncontrolled code; the models' calls cannot be made there. */
static void lu__ipose_async_call(int id)
{
    switch (id) {
    case LU_IPOSE_R_raise:
    case LU_IPOSE_R_kill:
    case LU_IPOSE_R_sigqueue:
    case LU_IPOSE_R_sigaction:
    case LU_IPOSE_R_signal:
    case LU_IPOSE_R_pthread_sigmask:
    case LU_IPOSE_R_sigprocmask:
    case LU_IPOSE_R_sleep:
    case LU_IPOSE_R_usleep:
    case LU_IPOSE_R_nanosleep:
    case LU_IPOSE_R_clock_nanosleep:
    case LU_IPOSE_R_clock_gettime:
    case LU_IPOSE_R_gettimeofday:
    case LU_IPOSE_R_time:
    case LU_IPOSE_R_timespec_get:
    case LU_IPOSE_R_sched_yield:
    case LU_IPOSE_R_sched_setaffinity:
    case LU_IPOSE_R_sched_getaffinity:
    case LU_IPOSE_R_sched_setscheduler:
    case LU_IPOSE_R_sched_getscheduler:
    case LU_IPOSE_R_sched_setparam:
    case LU_IPOSE_R_sched_getparam:
        return;
    default:
        lu_sched_unsupported("a pthread call in the handler of a signal that arrived at a time lineup does "
                             "not control (a timer's, another process's) is not supported under lineup");
    }
}

/* Uncontrolled callers go straight to libc; controlled ones record their call
 * site for the scheduler's reports (LU_SCHED_SET_PC reads this function's
 * return address, so it must be expanded in the exported interposer itself,
 * never in a helper). */
#define LU_IPOSE_PASS(name, args)                                                                            \
    do {                                                                                                     \
        if (lu_sched_self() < 0) {                                                                           \
            if (__builtin_expect(lu_sched_in_async(), 0)) {                                                  \
                LU_SCHED_SET_PC();                                                                           \
                lu__ipose_async_call(LU_IPOSE_R_##name);                                                     \
            }                                                                                                \
            return LU_IPOSE_REAL(name) args;                                                                 \
        }                                                                                                    \
        LU_SCHED_SET_PC();                                                                                   \
    } while (0)

#define LU_IPOSE_PASS_VOID(name, args)                                                                       \
    do {                                                                                                     \
        if (lu_sched_self() < 0) {                                                                           \
            if (__builtin_expect(lu_sched_in_async(), 0)) {                                                  \
                LU_SCHED_SET_PC();                                                                           \
                lu__ipose_async_call(LU_IPOSE_R_##name);                                                     \
            }                                                                                                \
            LU_IPOSE_REAL(name) args;                                                                        \
            return;                                                                                          \
        }                                                                                                    \
        LU_SCHED_SET_PC();                                                                                   \
    } while (0)

/* ---- unsupported calls: bodies generated ---- */

#define LU_IPOSE_UNSUP(ret, name, version, params, args)                                                     \
    LU_IPOSE_EXPORT ret name params                                                                          \
    {                                                                                                        \
        if (lu_sched_self() >= 0 || lu_sched_in_async()) {                                                   \
            LU_SCHED_SET_PC();                                                                               \
            lu_sched_unsupported(#name " is not supported under lineup");                                    \
        }                                                                                                    \
        return LU_IPOSE_REAL(name) args;                                                                     \
    }
#include "lu_ipose.def"

/* vfork, by hand: unsupported under control, as fork is (its child shares
 * the execution's memory, and its exec or _exit would be taken for the
 * execution's own). Outside control it forks: a wrapper that called the
 * real vfork would return twice on one stack frame, the parent resuming in
 * a frame its child had run over, while for what a vfork child may do (exec
 * or _exit) a fork is the same. */
LU_IPOSE_EXPORT pid_t vfork(void)
{
    if (lu_sched_self() >= 0 || lu_sched_in_async()) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("vfork is not supported under lineup");
    }
    return LU_IPOSE_REAL(fork)();
}

/* ---- helpers ---- */

/* A controlled thread's pthread_t: never a valid pointer (real pthread_t are
 * addresses below 2^47), so real and fake handles cannot collide. */
#define LU_IPOSE_TH_TAG 0x4c55u
#define LU_IPOSE_TH_LOW_MASK 0xffffffffffffull

static inline uint64_t lu_ipose_handle(int tid)
{
    return (uint64_t)(tid + 1) << 48 | LU_IPOSE_TH_TAG;
}

/* tid of a fake handle, or -1 for anything else (a real pthread_t). */
static inline int lu_ipose_tid(uint64_t th)
{
    uint64_t t = th >> 48;
    if ((th & LU_IPOSE_TH_LOW_MASK) != LU_IPOSE_TH_TAG || t == 0 || t > LU_SCHED_MAX_THREADS)
        return -1;
    return (int)t - 1;
}

static inline bool lu_ipose_ts_bad(const struct timespec *ts)
{
    return ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L;
}

/* ---- virtual time ----
 * Under control the wall clocks read the execution's virtual time
 * (lu_sched_time) from a fixed point: a sleep moves it on by what it asked
 * for, a timed wait that gave up to its deadline, and each read by a
 * microsecond (natively two reads differ, and a loop that polls the clock
 * until a deadline ends). So a program that measures time runs the same on
 * the same schedule, in every process (a replay, a shard on another
 * machine), and no sleep or timeout is shorter than it asked for. */
#define LU__IPOSE_CLOCK_READ_NS 1000
#define LU__IPOSE_TIME_MAX (1ULL << 62) /* ns of virtual time at most (146 years): sums stay in range */
#define LU__IPOSE_EPOCH_S 1767225600ULL /* the realtime clocks start at 2026-01-01 00:00:00 UTC */
#define LU__IPOSE_UPTIME_S 1000ULL      /* the monotonic ones, as 1000 s after a boot */

/* A clock's reading at virtual time 0, in ns, or 0 for the clocks that stay
 * real: CPU time, the alarm clocks (not on every machine), ids that name
 * no clock. */
static uint64_t lu__ipose_clock_base(clockid_t clk)
{
    switch (clk) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
        return LU__IPOSE_EPOCH_S * 1000000000ULL;
    case CLOCK_TAI:
        return (LU__IPOSE_EPOCH_S + 37) * 1000000000ULL; /* TAI - UTC since 2017 */
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        return LU__IPOSE_UPTIME_S * 1000000000ULL;
    default:
        return 0;
    }
}

static bool lu__ipose_clock_virtual(clockid_t clk)
{
    return lu__ipose_clock_base(clk) != 0;
}

static uint64_t lu__ipose_time_add(uint64_t a, uint64_t b)
{
    return a >= LU__IPOSE_TIME_MAX || b >= LU__IPOSE_TIME_MAX - a ? LU__IPOSE_TIME_MAX : a + b;
}

static uint64_t lu__ipose_ts_ns(const struct timespec *ts)
{
    if (ts->tv_sec < 0)
        return 0;
    if ((uint64_t)ts->tv_sec >= UINT64_MAX / 1000000000u - 1)
        return UINT64_MAX;
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* The virtual time at which clock clk reads abs (0: before the start). */
static uint64_t lu__ipose_clock_at(clockid_t clk, const struct timespec *abs)
{
    uint64_t ns = lu__ipose_ts_ns(abs), base = lu__ipose_clock_base(clk);
    return ns > base ? lu__ipose_time_add(0, ns - base) : 0;
}

/* A timed wait's result: one that gave up waited until its deadline. */
static inline int lu_ipose_timed(int rc, clockid_t clk, const struct timespec *abs)
{
    if (rc == ETIMEDOUT && lu__ipose_clock_virtual(clk))
        lu_sched_time_reach(lu__ipose_clock_at(clk, abs));
    return rc;
}

/* pthread_cond_timedwait's clock: glibc keeps pthread_condattr_setclock's
 * choice in bit 1 of __wrefs (CLOCK_MONOTONIC if set). */
static inline clockid_t lu_ipose_cond_clock(const pthread_cond_t *c)
{
    return (c->__data.__wrefs & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

/* A relative sleep of ns: a spin hint, after which its time has passed. */
#define LU_IPOSE_SLEEP(ns, label)                                                                            \
    do {                                                                                                     \
        uint64_t lu__wake_ = lu__ipose_time_add(lu_sched_time(), (ns));                                      \
        lu_sched_yield(label);                                                                               \
        lu_sched_time_reach(lu__wake_);                                                                      \
    } while (0)

static void lu__ipose_clock_read(clockid_t clk, struct timespec *ts)
{
    uint64_t now = lu_sched_time();
    lu_sched_time_reach(lu__ipose_time_add(now, LU__IPOSE_CLOCK_READ_NS));
    uint64_t ns = lu__ipose_clock_base(clk) + now;
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
}

/* The clocks glibc accepts for *_clock* waits. */
static inline bool lu_ipose_clock_bad(clockid_t clk)
{
    return clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC;
}

/* The model knows normal, recursive and errorcheck; adaptive relocking
 * deadlocks like normal. */
static inline int lu_ipose_mutex_type(int type)
{
    return type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK ? type : PTHREAD_MUTEX_NORMAL;
}

/* First use in this execution of an object the model has not seen
 * (lu_sched_known): take the state its libc memory was initialized with, so
 * that objects initialized outside control (a static
 * PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, a semaphore a constructor set up)
 * keep their type, value or count. The real object is never modified under
 * control, so its memory still holds the initial state. */
/* glibc's flag for robust mutexes in __kind (its internal
 * PTHREAD_MUTEX_ROBUST_NORMAL_NP) */
#define LU_IPOSE_MUTEX_KIND_ROBUST 16

static inline void lu_ipose_adopt_mutex(void *m)
{
    int kind = ((pthread_mutex_t *)m)->__data.__kind;
    int type = lu_ipose_mutex_type(kind & 3);
    bool robust = (kind & LU_IPOSE_MUTEX_KIND_ROBUST) != 0, had_robust = false, mine;
    /* unknown (-1), or known but its memory says another kind: initialized
     * anew there by assignment (a stack slot reused by another function's
     * mutex), which only the memory shows */
    if (lu_sched_mutex_kind(m, &had_robust, &mine) == type && had_robust == robust)
        return;
    lu_sched_mutex_init(m, type);
    if (robust)
        lu_sched_mutex_set_robust(m);
}

static inline void lu_ipose_adopt_sem(sem_t *sem)
{
    if (!lu_sched_known(sem, LU_SCHED_OBJ_SEM)) {
        int v = 0;
        LU_IPOSE_REAL(sem_getvalue)(sem, &v);
        lu_sched_sem_init(sem, v > 0 ? (unsigned)v : 0);
    }
}

static inline void lu_ipose_adopt_barrier(pthread_barrier_t *b)
{
    /* glibc's struct pthread_barrier { in, current_round, count, shared, out } */
    if (!lu_sched_known(b, LU_SCHED_OBJ_BARRIER))
        lu_sched_barrier_init(b, ((const unsigned *)b)[2]);
}

/* glibc's __PTHREAD_ONCE_DONE: the once ran outside control, before any
 * execution; the model would otherwise run it again in each one. */
static inline bool lu_ipose_once_done(const void *o)
{
    return (__atomic_load_n((const int *)o, __ATOMIC_ACQUIRE) & 2) != 0;
}

/* errno-style result of a semaphore call. */
static inline int lu_ipose_sem_ret(int rc)
{
    if (rc == 0)
        return 0;
    errno = rc;
    return -1;
}

/* ---- thread-specific data ----
 * Keys created under control are the model's, tagged so that they cannot be
 * mistaken for real keys (real ones are < PTHREAD_KEYS_MAX). Keys created
 * outside control (a library constructor) keep working under control through
 * a per-thread shadow table that starts empty in every execution, so values
 * never leak from one execution to the next; their destructors do not run
 * under control. */
#define LU_IPOSE_KEY_TAG 0x4c550000u
#define LU_IPOSE_KEY_MASK 0xffffu

static inline bool lu_ipose_key_tagged(unsigned k)
{
    return (k & ~LU_IPOSE_KEY_MASK) == LU_IPOSE_KEY_TAG;
}

static struct {
    const struct lu_sched *s;
    uint64_t execution;
    void *v[PTHREAD_KEYS_MAX];
} lu_ipose_ftsd[LU_SCHED_MAX_THREADS];

/* The caller's shadow row, emptied when it belongs to an earlier execution.
 * Only the baton holder runs, so no locking. */
static void **lu_ipose_ftsd_row(int tid)
{
    struct lu_sched *s = lu_sched_current();
    struct lu_sched_stats st;
    lu_sched_stats(s, &st);
    if (lu_ipose_ftsd[tid].s != s || lu_ipose_ftsd[tid].execution != st.executions) {
        memset(lu_ipose_ftsd[tid].v, 0, sizeof lu_ipose_ftsd[tid].v);
        lu_ipose_ftsd[tid].s = s;
        lu_ipose_ftsd[tid].execution = st.executions;
    }
    return lu_ipose_ftsd[tid].v;
}

/* ---- thread start ---- */

struct lu_ipose_start {
    void *(*fn)(void *);
    int (*c11)(void *);
    void *arg;
    uint64_t *out; /* the creator's pthread_t / thrd_t */
};

/* Runs on the new controlled thread. Its invisible prefix runs while the
 * creator is still inside pthread_create, so *p and *out are alive; writing
 * the handle here makes it visible to the child before its first operation,
 * as glibc does. */
static void *lu_ipose_thread_main(void *p)
{
    struct lu_ipose_start st = *(struct lu_ipose_start *)p;
    int tid = lu_sched_self();
    lu_ipose_ftsd[tid].s = NULL;
    *st.out = lu_ipose_handle(tid);
    if (st.c11)
        return (void *)(intptr_t)st.c11(st.arg);
    return st.fn(st.arg);
}

/* ================================================================ mutexes */

LU_IPOSE_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    int rc = LU_IPOSE_REAL(pthread_mutex_init)(m, a);
    if (rc != 0 || lu_sched_self() < 0)
        return rc;
    int type = PTHREAD_MUTEX_DEFAULT, robust = PTHREAD_MUTEX_STALLED;
    if (a) {
        pthread_mutexattr_gettype(a, &type);
        pthread_mutexattr_getrobust(a, &robust);
    }
    lu_sched_mutex_init(m, lu_ipose_mutex_type(type));
    if (robust == PTHREAD_MUTEX_ROBUST)
        lu_sched_mutex_set_robust(m);
    return 0;
}

LU_IPOSE_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_mutex_destroy, (m));
    int rc = lu_sched_mutex_destroy(m);
    return rc ? rc : LU_IPOSE_REAL(pthread_mutex_destroy)(m);
}

LU_IPOSE_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_mutex_lock, (m));
    lu_ipose_adopt_mutex(m);
    return lu_sched_mutex_lock(m, LU_IPOSE_L(pthread_mutex_lock));
}

LU_IPOSE_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_mutex_trylock, (m));
    lu_ipose_adopt_mutex(m);
    return lu_sched_mutex_trylock(m, LU_IPOSE_L(pthread_mutex_trylock));
}

/* A timed lock with a time out of range: glibc looks at the time only when
 * it must wait, so it takes a free mutex (or relocks a recursive one it
 * holds), refuses to relock an error-checking one it holds (EDEADLK), and
 * fails with EINVAL instead of waiting. */
static int lu__ipose_lock_bad_time(pthread_mutex_t *m, uint16_t label)
{
    int rc = lu_sched_mutex_trylock(m, label);
    bool robust, mine = false;
    if (rc == EBUSY && lu_sched_mutex_kind(m, &robust, &mine) == PTHREAD_MUTEX_ERRORCHECK && mine)
        return EDEADLK;
    return rc == EBUSY ? EINVAL : rc;
}

LU_IPOSE_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_mutex_timedlock, (m, ts));
    lu_ipose_adopt_mutex(m);
    if (lu_ipose_ts_bad(ts))
        return lu__ipose_lock_bad_time(m, LU_IPOSE_L(pthread_mutex_timedlock));
    return lu_ipose_timed(lu_sched_mutex_timedlock(m, LU_IPOSE_L(pthread_mutex_timedlock)), CLOCK_REALTIME,
                          ts);
}

LU_IPOSE_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_mutex_clocklock, (m, clk, ts));
    if (lu_ipose_clock_bad(clk))
        return EINVAL;
    lu_ipose_adopt_mutex(m);
    if (lu_ipose_ts_bad(ts))
        return lu__ipose_lock_bad_time(m, LU_IPOSE_L(pthread_mutex_clocklock));
    return lu_ipose_timed(lu_sched_mutex_timedlock(m, LU_IPOSE_L(pthread_mutex_clocklock)), clk, ts);
}

LU_IPOSE_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_mutex_unlock, (m));
    lu_ipose_adopt_mutex(m); /* its kind decides who may unlock it */
    return lu_sched_mutex_unlock(m, LU_IPOSE_L(pthread_mutex_unlock));
}

LU_IPOSE_EXPORT int pthread_mutex_consistent(pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_mutex_consistent, (m));
    lu_ipose_adopt_mutex(m);
    return lu_sched_mutex_consistent(m);
}

/* ================================================================ rwlocks */

/* glibc keeps the kind in the lock (PTHREAD_RWLOCK_*_INITIALIZER_NP set it
 * too); only the writer-preferring kind behaves differently. */
static inline bool lu_ipose_rw_prefers_writer(const pthread_rwlock_t *rw)
{
    return rw->__data.__flags == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

static inline void lu_ipose_adopt_rw(pthread_rwlock_t *rw)
{
    if (!lu_sched_known(rw, LU_SCHED_OBJ_RW))
        lu_sched_rw_init(rw, lu_ipose_rw_prefers_writer(rw));
}

LU_IPOSE_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *a)
{
    int rc = LU_IPOSE_REAL(pthread_rwlock_init)(rw, a);
    if (rc != 0 || lu_sched_self() < 0)
        return rc;
    lu_sched_rw_init(rw, lu_ipose_rw_prefers_writer(rw));
    return 0;
}

LU_IPOSE_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_destroy, (rw));
    int rc = lu_sched_rw_destroy(rw);
    return rc ? rc : LU_IPOSE_REAL(pthread_rwlock_destroy)(rw);
}

LU_IPOSE_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_rdlock, (rw));
    lu_ipose_adopt_rw(rw);
    return lu_sched_rw_rdlock(rw, LU_IPOSE_L(pthread_rwlock_rdlock));
}

LU_IPOSE_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_wrlock, (rw));
    lu_ipose_adopt_rw(rw);
    return lu_sched_rw_wrlock(rw, LU_IPOSE_L(pthread_rwlock_wrlock));
}

LU_IPOSE_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_tryrdlock, (rw));
    lu_ipose_adopt_rw(rw);
    return lu_sched_rw_tryrdlock(rw, LU_IPOSE_L(pthread_rwlock_tryrdlock));
}

LU_IPOSE_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_trywrlock, (rw));
    lu_ipose_adopt_rw(rw);
    return lu_sched_rw_trywrlock(rw, LU_IPOSE_L(pthread_rwlock_trywrlock));
}

LU_IPOSE_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_rwlock_timedrdlock, (rw, ts));
    lu_ipose_adopt_rw(rw);
    if (lu_ipose_ts_bad(ts))
        return EINVAL;
    return lu_ipose_timed(lu_sched_rw_timedrdlock(rw, LU_IPOSE_L(pthread_rwlock_timedrdlock)), CLOCK_REALTIME,
                          ts);
}

LU_IPOSE_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_rwlock_timedwrlock, (rw, ts));
    lu_ipose_adopt_rw(rw);
    if (lu_ipose_ts_bad(ts))
        return EINVAL;
    return lu_ipose_timed(lu_sched_rw_timedwrlock(rw, LU_IPOSE_L(pthread_rwlock_timedwrlock)), CLOCK_REALTIME,
                          ts);
}

LU_IPOSE_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_rwlock_clockrdlock, (rw, clk, ts));
    lu_ipose_adopt_rw(rw);
    if (lu_ipose_clock_bad(clk) || lu_ipose_ts_bad(ts))
        return EINVAL;
    return lu_ipose_timed(lu_sched_rw_timedrdlock(rw, LU_IPOSE_L(pthread_rwlock_clockrdlock)), clk, ts);
}

LU_IPOSE_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_rwlock_clockwrlock, (rw, clk, ts));
    lu_ipose_adopt_rw(rw);
    if (lu_ipose_clock_bad(clk) || lu_ipose_ts_bad(ts))
        return EINVAL;
    return lu_ipose_timed(lu_sched_rw_timedwrlock(rw, LU_IPOSE_L(pthread_rwlock_clockwrlock)), clk, ts);
}

LU_IPOSE_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    LU_IPOSE_PASS(pthread_rwlock_unlock, (rw));
    lu_ipose_adopt_rw(rw);
    return lu_sched_rw_unlock(rw, LU_IPOSE_L(pthread_rwlock_unlock));
}

/* ================================================================ condition variables */

LU_IPOSE_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    /* the model's condition starts without waiters */
    return LU_IPOSE_REAL(pthread_cond_init)(c, a);
}

LU_IPOSE_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
    LU_IPOSE_PASS(pthread_cond_destroy, (c));
    int rc = lu_sched_cond_destroy(c);
    return rc ? rc : LU_IPOSE_REAL(pthread_cond_destroy)(c);
}

LU_IPOSE_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    LU_IPOSE_PASS(pthread_cond_wait, (c, m));
    lu_ipose_adopt_mutex(m); /* its kind decides who may wait with it */
    return lu_sched_cond_wait(c, m, LU_IPOSE_L(pthread_cond_wait));
}

LU_IPOSE_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_cond_timedwait, (c, m, ts));
    if (lu_ipose_ts_bad(ts))
        return EINVAL;
    lu_ipose_adopt_mutex(m);
    return lu_ipose_timed(lu_sched_cond_timedwait(c, m, LU_IPOSE_L(pthread_cond_timedwait)),
                          lu_ipose_cond_clock(c), ts);
}

LU_IPOSE_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                           const struct timespec *ts)
{
    LU_IPOSE_PASS(pthread_cond_clockwait, (c, m, clk, ts));
    if (lu_ipose_clock_bad(clk) || lu_ipose_ts_bad(ts))
        return EINVAL;
    lu_ipose_adopt_mutex(m);
    return lu_ipose_timed(lu_sched_cond_timedwait(c, m, LU_IPOSE_L(pthread_cond_clockwait)), clk, ts);
}

LU_IPOSE_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    LU_IPOSE_PASS(pthread_cond_signal, (c));
    return lu_sched_cond_signal(c, LU_IPOSE_L(pthread_cond_signal));
}

LU_IPOSE_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    LU_IPOSE_PASS(pthread_cond_broadcast, (c));
    return lu_sched_cond_broadcast(c, LU_IPOSE_L(pthread_cond_broadcast));
}

/* ================================================================ spin locks */

LU_IPOSE_EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
    int rc = LU_IPOSE_REAL(pthread_spin_init)(l, pshared);
    if (rc == 0 && lu_sched_self() >= 0)
        lu_sched_mutex_init((void *)l, PTHREAD_MUTEX_NORMAL);
    return rc;
}

LU_IPOSE_EXPORT int pthread_spin_destroy(pthread_spinlock_t *l)
{
    LU_IPOSE_PASS(pthread_spin_destroy, (l));
    int rc = lu_sched_mutex_destroy((void *)l);
    return rc ? rc : LU_IPOSE_REAL(pthread_spin_destroy)(l);
}

/* A spinning waiter is modelled as blocked: same outcomes, no livelock noise. */
LU_IPOSE_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
    LU_IPOSE_PASS(pthread_spin_lock, (l));
    return lu_sched_mutex_lock((void *)l, LU_IPOSE_L(pthread_spin_lock));
}

LU_IPOSE_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
    LU_IPOSE_PASS(pthread_spin_trylock, (l));
    return lu_sched_mutex_trylock((void *)l, LU_IPOSE_L(pthread_spin_trylock));
}

LU_IPOSE_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
    LU_IPOSE_PASS(pthread_spin_unlock, (l));
    return lu_sched_mutex_unlock((void *)l, LU_IPOSE_L(pthread_spin_unlock));
}

/* ================================================================ stdio stream locks */

/* A stream's lock under control is the model's alone: stdio's own locking
 * inside printf and the like does not go through these symbols, takes
 * glibc's lock at once (its owner is the shared thread pointer, or the
 * lock is free) and never waits in the kernel, so a thread that prints
 * without flockfile is not held back by one that holds it (its output may
 * come between the holder's lines, as it would not natively). */
static inline void lu_ipose_adopt_file(FILE *f)
{
    bool robust, mine;
    if (lu_sched_mutex_kind(f, &robust, &mine) != PTHREAD_MUTEX_RECURSIVE)
        lu_sched_mutex_init(f, PTHREAD_MUTEX_RECURSIVE);
}

LU_IPOSE_EXPORT void flockfile(FILE *f)
{
    LU_IPOSE_PASS_VOID(flockfile, (f));
    lu_ipose_adopt_file(f);
    lu_sched_mutex_lock(f, LU_IPOSE_L(flockfile));
}

LU_IPOSE_EXPORT int ftrylockfile(FILE *f)
{
    LU_IPOSE_PASS(ftrylockfile, (f));
    lu_ipose_adopt_file(f);
    return lu_sched_mutex_trylock(f, LU_IPOSE_L(ftrylockfile)) == 0 ? 0 : EBUSY; /* glibc's nonzero */
}

LU_IPOSE_EXPORT void funlockfile(FILE *f)
{
    LU_IPOSE_PASS_VOID(funlockfile, (f));
    lu_ipose_adopt_file(f);
    /* POSIX leaves it undefined; glibc lets go whoever calls. Dropped, it
     * left the holder's lock taken and a deadlock blamed on another thread
     * (a review's): say what happened instead */
    if (lu_sched_mutex_unlock(f, LU_IPOSE_L(funlockfile)) != 0)
        lu_sched_unsupported("funlockfile by a thread that does not hold the stream's lock");
}

/* ================================================================ barriers, once */

LU_IPOSE_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned count)
{
    int rc = LU_IPOSE_REAL(pthread_barrier_init)(b, a, count);
    if (rc == 0 && lu_sched_self() >= 0)
        lu_sched_barrier_init(b, count);
    return rc;
}

LU_IPOSE_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
    LU_IPOSE_PASS(pthread_barrier_destroy, (b));
    int rc = lu_sched_barrier_destroy(b);
    return rc ? rc : LU_IPOSE_REAL(pthread_barrier_destroy)(b);
}

LU_IPOSE_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    LU_IPOSE_PASS(pthread_barrier_wait, (b));
    lu_ipose_adopt_barrier(b);
    int rc = lu_sched_barrier_wait(b, LU_IPOSE_L(pthread_barrier_wait));
    return rc == 1 ? PTHREAD_BARRIER_SERIAL_THREAD : rc;
}

LU_IPOSE_EXPORT int pthread_once(pthread_once_t *o, void (*init)(void))
{
    LU_IPOSE_PASS(pthread_once, (o, init));
    if (lu_ipose_once_done(o))
        return 0;
    return lu_sched_once(o, init, LU_IPOSE_L(pthread_once));
}

/* ================================================================ threads */

/* After a successful controlled creation. */
static inline int lu_ipose_created(int tid, uint64_t *out, bool detached)
{
    *out = lu_ipose_handle(tid);
    if (detached)
        lu_sched_detach(tid);
    return 0;
}

#define LU__IPOSE_STR2(x) #x
#define LU__IPOSE_STR(x) LU__IPOSE_STR2(x)

/* lineup's bound, not the system's: a program would see a failure it
 * never sees outside lineup (and most do not check for it), so the
 * execution ends as unsupported instead of returning EAGAIN. */
static __attribute__((noreturn)) void lu__ipose_too_many_threads(void)
{
    lu_sched_unsupported("more than " LU__IPOSE_STR(
        LU_SCHED_MAX_THREADS) " threads in one execution (the "
                              "main thread included): lineup supports at most that many");
}

LU_IPOSE_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    LU_IPOSE_PASS(pthread_create, (th, a, fn, arg));
    int ds = PTHREAD_CREATE_JOINABLE;
    size_t stack = 0;
    if (a && (pthread_attr_getdetachstate(a, &ds) != 0 || pthread_attr_getstacksize(a, &stack) != 0))
        return EINVAL;
    struct lu_ipose_start st = {.fn = fn, .arg = arg, .out = (uint64_t *)th};
    /* the system's limits are lineup's business here: when the pool
     * thread behind the new one cannot start, the execution ends as a
     * tool error (lu_sched_spawn), the program never sees EAGAIN */
    int tid = lu_sched_create_thread(lu_ipose_thread_main, &st, stack, LU_IPOSE_L(pthread_create));
    if (tid < 0)
        lu__ipose_too_many_threads();
    return lu_ipose_created(tid, (uint64_t *)th, ds == PTHREAD_CREATE_DETACHED);
}

LU_IPOSE_EXPORT int pthread_join(pthread_t th, void **ret)
{
    int tid = lu_ipose_tid(th);
    if (lu_sched_self() < 0)
        return tid >= 0 ? ESRCH : LU_IPOSE_REAL(pthread_join)(th, ret); /* a stale handle */
    LU_SCHED_SET_PC();
    if (tid < 0)
        lu_sched_unsupported("pthread_join of a thread lineup did not create is not supported");
    return lu_sched_join(tid, ret, LU_IPOSE_L(pthread_join));
}

LU_IPOSE_EXPORT int pthread_detach(pthread_t th)
{
    int tid = lu_ipose_tid(th);
    if (tid < 0)
        return LU_IPOSE_REAL(pthread_detach)(th); /* a real thread: never blocks */
    if (lu_sched_self() < 0)
        return ESRCH;
    return lu_sched_detach(tid);
}

/* ---- pthread_cleanup_push and pop ----
 * glibc's macros (C without -fexceptions) setjmp into a buffer and register
 * it; pthread_exit unwinds by longjmp into the innermost buffer, whose
 * handler runs and calls __pthread_unwind_next for the next one. glibc keeps
 * the chain in the thread's control block and walks it with the unwinder, and
 * a controlled thread has neither of its own (it runs on its pool thread's),
 * so the chain is kept per controlled thread and walked here. The buffers'
 * private words are this chain's alone: __pad[0] links to the next outer
 * buffer (as in glibc), __pad[1] carries the exit value while a handler
 * runs. The _defer/_restore variants also switch the cancellation type,
 * which means nothing under lineup (pthread_cancel is unsupported). */

static void lu__ipose_cleanup_push(__pthread_unwind_buf_t *buf)
{
    void **chain = lu_sched_cleanup_chain();
    buf->__pad[0] = *chain;
    *chain = buf;
}

static void lu__ipose_cleanup_pop(__pthread_unwind_buf_t *buf)
{
    *lu_sched_cleanup_chain() = buf->__pad[0];
}

/* siglongjmp typed for the buffer the macros setjmp into (as pthread.h's
 * __sigsetjmp_cancel is): it has no saved mask, and the mask was not saved. */
extern void lu__ipose_longjmp_cancel(struct __cancel_jmp_buf_tag env[1], int val) __asm__("siglongjmp")
    __attribute__((noreturn));

/* Code built with -fexceptions (or C++) has no buffers: its cleanups
 * (pthread_cleanup_push's there, destructors) are landing pads the
 * exception unwinder runs, as glibc's pthread_exit has it do, up to the
 * thread's entry. The exception object outlives the frames the unwinder
 * goes back to, so it is not on the stack: one per thread of the
 * execution (one execution runs at a time in a process). */
static struct _Unwind_Exception lu__ipose_exit_exc[LU_SCHED_MAX_THREADS];
static void *lu__ipose_exit_ret[LU_SCHED_MAX_THREADS];

static _Unwind_Reason_Code lu__ipose_unwind_stop(int version, _Unwind_Action actions,
                                                 _Unwind_Exception_Class cls, struct _Unwind_Exception *exc,
                                                 struct _Unwind_Context *ctx, void *arg)
{
    (void)version;
    (void)cls;
    (void)exc;
    (void)arg;
    if ((actions & _UA_END_OF_STACK) || _Unwind_GetCFA(ctx) > lu_sched_entry_frame())
        lu_sched_exit(lu__ipose_exit_ret[lu_sched_self()]);
    return _URC_NO_REASON;
}

/* A catch (...) that does not rethrow destroys the exception, and the
 * thread would go on after its pthread_exit: glibc aborts the process
 * then. An abort from here would read as lineup's own, so the execution
 * ends as an unsupported call, which names what happened. */
static void lu__ipose_exit_swallowed(_Unwind_Reason_Code code, struct _Unwind_Exception *exc)
{
    (void)code;
    (void)exc;
    lu_sched_unsupported("a catch (...) that does not rethrow pthread_exit's unwinding (glibc aborts: FATAL: "
                         "exception not rethrown)");
}

static void lu__ipose_forced_unwind(void *ret) __attribute__((noreturn));
static void lu__ipose_forced_unwind(void *ret)
{
    int self = lu_sched_self();
    struct _Unwind_Exception *exc = &lu__ipose_exit_exc[self];
    memset(exc, 0, sizeof *exc);
    exc->exception_cleanup = lu__ipose_exit_swallowed;
    memcpy(&exc->exception_class, "LU\0\0EXIT", sizeof exc->exception_class);
    lu__ipose_exit_ret[self] = ret;
    _Unwind_ForcedUnwind(exc, lu__ipose_unwind_stop, NULL);
    /* no unwind information to go by: the thread ends here, its cleanups
     * not run */
    lu_sched_exit(ret);
}

/* Runs the innermost handler still registered, which comes back through
 * __pthread_unwind_next; with none left, ends the thread. */
static void lu__ipose_unwind(void *ret) __attribute__((noreturn));
static void lu__ipose_unwind(void *ret)
{
    void **chain = lu_sched_cleanup_chain();
    __pthread_unwind_buf_t *buf = *chain;
    if (!buf)
        lu__ipose_forced_unwind(ret);
    *chain = buf->__pad[0];
    buf->__pad[1] = ret;
    lu__ipose_longjmp_cancel(buf->__cancel_jmp_buf, 1);
}

LU_IPOSE_EXPORT void __pthread_register_cancel(__pthread_unwind_buf_t *buf)
{
    LU_IPOSE_PASS_VOID(__pthread_register_cancel, (buf));
    lu__ipose_cleanup_push(buf);
}

LU_IPOSE_EXPORT void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf)
{
    LU_IPOSE_PASS_VOID(__pthread_unregister_cancel, (buf));
    lu__ipose_cleanup_pop(buf);
}

LU_IPOSE_EXPORT void __pthread_register_cancel_defer(__pthread_unwind_buf_t *buf)
{
    LU_IPOSE_PASS_VOID(__pthread_register_cancel_defer, (buf));
    lu__ipose_cleanup_push(buf);
}

LU_IPOSE_EXPORT void __pthread_unregister_cancel_restore(__pthread_unwind_buf_t *buf)
{
    LU_IPOSE_PASS_VOID(__pthread_unregister_cancel_restore, (buf));
    lu__ipose_cleanup_pop(buf);
}

LU_IPOSE_EXPORT void __pthread_unwind_next(__pthread_unwind_buf_t *buf)
{
    if (lu_sched_self() >= 0)
        lu__ipose_unwind(buf->__pad[1]);
    LU_IPOSE_REAL(__pthread_unwind_next)(buf);
    __builtin_unreachable();
}

LU_IPOSE_EXPORT void pthread_exit(void *ret)
{
    if (lu_sched_self() >= 0)
        lu__ipose_unwind(ret);
    LU_IPOSE_REAL(pthread_exit)(ret);
    __builtin_unreachable();
}

LU_IPOSE_EXPORT pthread_t pthread_self(void)
{
    int self = lu_sched_self();
    return self >= 0 ? (pthread_t)lu_ipose_handle(self) : LU_IPOSE_REAL(pthread_self)();
}

/* A controlled thread's kernel thread id: the pid for the main thread, as
 * natively (it is the id of the kernel thread all of them run on), then
 * made-up ids in creation order, above PID_MAX_LIMIT (2^22 on 64-bit
 * Linux, the most /proc/sys/kernel/pid_max can be): ids after the pid
 * would be those of lineup's own threads. */
#define LU__IPOSE_TID_BASE (1 << 22)

static pid_t lu__ipose_tid_of(int self)
{
    return self == 0 ? getpid() : LU__IPOSE_TID_BASE + self;
}

LU_IPOSE_EXPORT pid_t gettid(void)
{
    int self = lu_sched_self();
    return self >= 0 ? lu__ipose_tid_of(self) : LU_IPOSE_REAL(gettid)();
}

/* The id a call that takes a thread id passes to the kernel, for a
 * controlled caller: a made-up id of a live thread of the execution names
 * the kernel thread they all run on (0, the caller's own); one of a thread
 * that is gone, or never was, names nothing (-1: fail with ESRCH). Other
 * ids (0, the pid, another process's) pass unchanged. */
static pid_t lu__ipose_kernel_tid(pid_t tid)
{
    if (tid <= LU__IPOSE_TID_BASE)
        return tid;
    int k = tid - LU__IPOSE_TID_BASE;
    return lu_sched_live(k) ? 0 : -1;
}

/* The thread of the execution a thread id names (tgkill), or -1. */
static int lu__ipose_thread_of_tid(pid_t tid)
{
    if (tid == getpid())
        return 0;
    if (tid <= LU__IPOSE_TID_BASE || tid > LU__IPOSE_TID_BASE + LU_SCHED_MAX_THREADS)
        return -1;
    return tid - LU__IPOSE_TID_BASE;
}

/* A signal a controlled thread is about to raise on its own process, which
 * no handler of the program's takes: when it ends the process (SIGKILL, or
 * a default action that terminates), the scheduler hears first who sends
 * it and where, since no handler will see it. */
static void lu__ipose_fatal_ahead(int sig)
{
    if (sig != SIGKILL) {
        struct sigaction cur;
        sigset_t blocked;
        if (sig <= 0 || sig >= NSIG || lu_sched_fatal_signal_handled(sig) ||
            LU_IPOSE_REAL(sigaction)(sig, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL ||
            LU_IPOSE_REAL(pthread_sigmask)(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, sig))
            return;
        switch (sig) {
        case SIGCHLD: /* ignored by default */
        case SIGCONT:
        case SIGURG:
        case SIGWINCH:
        case SIGSTOP: /* stops */
        case SIGTSTP:
        case SIGTTIN:
        case SIGTTOU:
            return;
        default:
            break;
        }
    }
    lu_sched_fatal_signal_ahead(sig);
}

/* How a controlled thread takes a signal: raised on the kernel thread, with
 * the program's disposition, as raise() does (lu_sched_kill). */
static void lu__ipose_take_signal(int sig)
{
    if (lu__ipose_deliver(sig, SI_TKILL))
        return;
    lu__ipose_fatal_ahead(sig);
    lu__ipose_sync++;
    LU_IPOSE_REAL(raise)(sig);
    lu__ipose_sync--;
}

/* A signal from a controlled thread to thread tid of its execution: to
 * itself, or one that acts on the whole process, at once (as raise); to
 * another, pending until it is chosen (lu_sched_kill). An errno value. */
static int lu__ipose_signal_thread(int tid, int sig, bool by_id, uint16_t label)
{
    /* glibc keeps SIGCANCEL and SIGSETXID (32, 33) for itself */
    if (sig < 0 || sig > 64 || sig == 32 || sig == 33)
        return EINVAL;
    if (!lu_sched_live(tid))
        /* gone: glibc drops a signal sent by handle (since 2.34); no
         * thread has the id any more */
        return !by_id && tid >= 0 && lu_sched_finished(tid) ? 0 : ESRCH;
    if (sig == 0)
        return 0;
    if (tid == lu_sched_self() || sig == SIGKILL || sig == SIGSTOP || sig == SIGCONT) {
        lu__ipose_take_signal(sig);
        return 0;
    }
    return lu_sched_kill(tid, sig, label, LU_IPOSE_L_take_signal);
}

LU_IPOSE_EXPORT int pthread_kill(pthread_t th, int sig)
{
    LU_IPOSE_PASS(pthread_kill, (th, sig));
    int tid = lu_ipose_tid(th);
    if (tid < 0)
        lu_sched_unsupported("pthread_kill of a thread lineup does not control is not supported");
    return lu__ipose_signal_thread(tid, sig, false, LU_IPOSE_L(pthread_kill));
}

/* tgkill and tkill by a controlled thread: -1 and errno, or 0. A thread
 * group other than the process passes to the kernel. */
static long lu__ipose_tgkill(pid_t tgid, pid_t tid, int sig, uint16_t label)
{
    if (tgid != getpid())
        return LU_IPOSE_REAL(syscall)(SYS_tgkill, (long)tgid, (long)tid, (long)sig, 0L, 0L, 0L);
    int k = lu__ipose_thread_of_tid(tid);
    int rc = k < 0 ? ESRCH : lu__ipose_signal_thread(k, sig, true, label);
    if (rc) {
        errno = rc;
        return -1;
    }
    return 0;
}

LU_IPOSE_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
    LU_IPOSE_PASS(tgkill, (tgid, tid, sig));
    return (int)lu__ipose_tgkill(tgid, tid, sig, LU_IPOSE_L(tgkill));
}

#define LU__IPOSE_BY_TID(name, pid, args)                                                                    \
    do {                                                                                                     \
        LU_IPOSE_PASS(name, args);                                                                           \
        if ((pid = lu__ipose_kernel_tid(pid)) < 0) {                                                         \
            errno = ESRCH;                                                                                   \
            return -1;                                                                                       \
        }                                                                                                    \
        return LU_IPOSE_REAL(name) args;                                                                     \
    } while (0)

LU_IPOSE_EXPORT int sched_setaffinity(pid_t pid, size_t n, const cpu_set_t *set)
{
    LU__IPOSE_BY_TID(sched_setaffinity, pid, (pid, n, set));
}

LU_IPOSE_EXPORT int sched_getaffinity(pid_t pid, size_t n, cpu_set_t *set)
{
    LU__IPOSE_BY_TID(sched_getaffinity, pid, (pid, n, set));
}

LU_IPOSE_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
    LU__IPOSE_BY_TID(sched_setscheduler, pid, (pid, policy, p));
}

LU_IPOSE_EXPORT int sched_getscheduler(pid_t pid)
{
    LU__IPOSE_BY_TID(sched_getscheduler, pid, (pid));
}

LU_IPOSE_EXPORT int sched_setparam(pid_t pid, const struct sched_param *p)
{
    LU__IPOSE_BY_TID(sched_setparam, pid, (pid, p));
}

LU_IPOSE_EXPORT int sched_getparam(pid_t pid, struct sched_param *p)
{
    LU__IPOSE_BY_TID(sched_getparam, pid, (pid, p));
}

/* Defined under another C name: with optimization <pthread.h> provides an
 * extern inline pthread_equal, which a plain definition would collide with. */
LU_IPOSE_EXPORT int lu_ipose_pthread_equal(pthread_t a, pthread_t b) __asm__("pthread_equal");
LU_IPOSE_EXPORT int lu_ipose_pthread_equal(pthread_t a, pthread_t b)
{
    return a == b;
}

LU_IPOSE_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
    if (lu_ipose_tid(th) < 0)
        return LU_IPOSE_REAL(pthread_setname_np)(th, name);
    /* names are cosmetic; keep glibc's length check */
    return strlen(name) > 15 ? ERANGE : 0;
}

LU_IPOSE_EXPORT int pthread_getname_np(pthread_t th, char *buf, size_t len)
{
    int tid = lu_ipose_tid(th);
    if (tid < 0)
        return LU_IPOSE_REAL(pthread_getname_np)(th, buf, len);
    if (len < 16)
        return ERANGE;
    snprintf(buf, len, "lineup-%d", tid);
    return 0;
}

LU_IPOSE_EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *a)
{
    int tid = lu_ipose_tid(th);
    if (tid < 0)
        return LU_IPOSE_REAL(pthread_getattr_np)(th, a);
    /* Stack bounds of the caller itself are real (runtimes ask for them);
     * another controlled thread's pool thread is not reachable from here. */
    if (tid != lu_sched_self()) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("pthread_getattr_np of another thread is not supported under lineup");
    }
    void *lo;
    size_t size;
    if (!lu_sched_own_stack(&lo, &size))
        return LU_IPOSE_REAL(pthread_getattr_np)(lu_sched_pool_thread(), a);
    /* as glibc describes a thread it created: joinable, its stack's bounds */
    int rc = pthread_attr_init(a);
    if (rc == 0)
        rc = pthread_attr_setstack(a, lo, size);
    return rc;
}

/* ================================================================ thread-specific data */

/* Real keys created outside control (by constructors, before the
 * executions) and not deleted: they take slots of glibc's PTHREAD_KEYS_MAX,
 * so the model gives the program only the rest, as glibc would. */
static unsigned lu__ipose_real_keys;

static int lu__ipose_real_key(int rc, int delta)
{
    unsigned n = __atomic_load_n(&lu__ipose_real_keys, __ATOMIC_RELAXED);
    /* a delete of a key nobody counted (not valid, or made before lineup
     * was loaded) leaves the count at 0 */
    while (rc == 0 && (delta > 0 || n > 0) &&
           !__atomic_compare_exchange_n(&lu__ipose_real_keys, &n, n + (unsigned)delta, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
    return rc;
}

static unsigned lu__ipose_keys_taken(void)
{
    return __atomic_load_n(&lu__ipose_real_keys, __ATOMIC_RELAXED);
}

LU_IPOSE_EXPORT int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
    if (lu_sched_self() < 0 && !lu_sched_in_async())
        return lu__ipose_real_key(LU_IPOSE_REAL(pthread_key_create)(k, dtor), 1);
    LU_IPOSE_PASS(pthread_key_create, (k, dtor));
    unsigned mk;
    int rc = lu_sched_key_create(&mk, dtor, lu__ipose_keys_taken());
    if (rc == 0)
        *k = LU_IPOSE_KEY_TAG | mk;
    return rc;
}

LU_IPOSE_EXPORT int pthread_key_delete(pthread_key_t k)
{
    bool controlled = lu_sched_self() >= 0;
    if (lu_ipose_key_tagged(k))
        return controlled ? lu_sched_key_delete(k & LU_IPOSE_KEY_MASK) : EINVAL;
    if (controlled) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("pthread_key_delete of a key created outside lineup's control is not supported");
    }
    return lu__ipose_real_key(LU_IPOSE_REAL(pthread_key_delete)(k), -1);
}

LU_IPOSE_EXPORT void *pthread_getspecific(pthread_key_t k)
{
    int self = lu_sched_self();
    if (lu_ipose_key_tagged(k))
        return self >= 0 ? lu_sched_getspecific(k & LU_IPOSE_KEY_MASK) : NULL;
    if (self < 0)
        return LU_IPOSE_REAL(pthread_getspecific)(k);
    return k < PTHREAD_KEYS_MAX ? lu_ipose_ftsd_row(self)[k] : NULL;
}

LU_IPOSE_EXPORT int pthread_setspecific(pthread_key_t k, const void *v)
{
    int self = lu_sched_self();
    if (lu_ipose_key_tagged(k))
        return self >= 0 ? lu_sched_setspecific(k & LU_IPOSE_KEY_MASK, v) : EINVAL;
    if (self < 0)
        return LU_IPOSE_REAL(pthread_setspecific)(k, v);
    if (k >= PTHREAD_KEYS_MAX)
        return EINVAL;
    lu_ipose_ftsd_row(self)[k] = (void *)v;
    return 0;
}

/* ================================================================ semaphores */

LU_IPOSE_EXPORT int sem_init(sem_t *sem, int pshared, unsigned value)
{
    int rc = LU_IPOSE_REAL(sem_init)(sem, pshared, value);
    if (rc == 0 && lu_sched_self() >= 0)
        lu_sched_sem_init(sem, value);
    return rc;
}

LU_IPOSE_EXPORT int sem_destroy(sem_t *sem)
{
    LU_IPOSE_PASS(sem_destroy, (sem));
    int rc = lu_sched_sem_destroy(sem);
    return rc ? lu_ipose_sem_ret(rc) : LU_IPOSE_REAL(sem_destroy)(sem);
}

LU_IPOSE_EXPORT int sem_wait(sem_t *sem)
{
    LU_IPOSE_PASS(sem_wait, (sem));
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(lu_sched_sem_wait(sem, LU_IPOSE_L(sem_wait)));
}

LU_IPOSE_EXPORT int sem_trywait(sem_t *sem)
{
    LU_IPOSE_PASS(sem_trywait, (sem));
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(lu_sched_sem_trywait(sem, LU_IPOSE_L(sem_trywait)));
}

LU_IPOSE_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *ts)
{
    LU_IPOSE_PASS(sem_timedwait, (sem, ts));
    if (lu_ipose_ts_bad(ts))
        return lu_ipose_sem_ret(EINVAL);
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(
        lu_ipose_timed(lu_sched_sem_timedwait(sem, LU_IPOSE_L(sem_timedwait)), CLOCK_REALTIME, ts));
}

LU_IPOSE_EXPORT int sem_clockwait(sem_t *sem, clockid_t clk, const struct timespec *ts)
{
    LU_IPOSE_PASS(sem_clockwait, (sem, clk, ts));
    if (lu_ipose_clock_bad(clk) || lu_ipose_ts_bad(ts))
        return lu_ipose_sem_ret(EINVAL);
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(lu_ipose_timed(lu_sched_sem_timedwait(sem, LU_IPOSE_L(sem_clockwait)), clk, ts));
}

LU_IPOSE_EXPORT int sem_post(sem_t *sem)
{
    LU_IPOSE_PASS(sem_post, (sem));
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(lu_sched_sem_post(sem, LU_IPOSE_L(sem_post)));
}

LU_IPOSE_EXPORT int sem_getvalue(sem_t *sem, int *value)
{
    LU_IPOSE_PASS(sem_getvalue, (sem, value));
    lu_ipose_adopt_sem(sem);
    return lu_ipose_sem_ret(lu_sched_sem_getvalue(sem, value));
}

/* ================================================================ signals to oneself */

/* Whether pid names the caller's own process (or a group or every process,
 * which include it). */
static inline bool lu_ipose_kills_self(pid_t pid)
{
    return pid <= 0 || pid == getpid();
}

/* A signal sent to the own process with a handler installed, by a thread
 * that blocks it: natively any thread that does not block it takes it, so
 * one of them is chosen (a data choice when several may) and sent it, as
 * by pthread_kill. Returns whether it was; if not, the sender takes it (or
 * holds it while it blocks it). */
static bool lu__ipose_to_process(int sig, uint16_t label)
{
    struct lu_sched_sigstate *st = lu_sched_sigstate();
    if (!st || !(st->mask >> (sig - 1) & 1) || sig == SIGKILL || sig == SIGSTOP || sig == SIGCONT ||
        !lu__ipose_handled(sig))
        return false;
    int self = lu_sched_self(), takers[LU_SCHED_MAX_THREADS], n = 0;
    for (int tid = 0; tid < LU_SCHED_MAX_THREADS; tid++)
        if (tid != self && lu_sched_live(tid) && !(lu_sched_sigmask_of(tid) >> (sig - 1) & 1))
            takers[n++] = tid;
    if (n == 0) {
        /* every thread blocks it: pending on the process, for the first
         * thread that unblocks it (lu__ipose_unheld) */
        uint64_t *proc = lu_sched_process_sigs();
        if (!proc)
            return false;
        *proc |= 1ULL << (sig - 1);
        return true;
    }
    int k = n == 1 ? 0 : lu_sched_choose(n, label);
    return lu_sched_kill(takers[k], sig, label, LU_IPOSE_L_take_signal) == 0;
}

LU_IPOSE_EXPORT int kill(pid_t pid, int sig)
{
    LU_IPOSE_PASS(kill, (pid, sig));
    /* the process's signal: the thread that sends it takes it, unless it
     * blocks it and another does not */
    if (pid == getpid() && sig > 0 && sig <= 64 && lu__ipose_to_process(sig, LU_IPOSE_L(kill)))
        return 0;
    if (pid == getpid() && sig > 0 && lu__ipose_deliver(sig, SI_USER))
        return 0;
    if (lu_ipose_kills_self(pid))
        lu__ipose_fatal_ahead(sig);
    lu__ipose_sync++;
    int rc = LU_IPOSE_REAL(kill)(pid, sig);
    lu__ipose_sync--;
    return rc;
}

/* kill() with a value: to the own process, the same as kill */
LU_IPOSE_EXPORT int sigqueue(pid_t pid, int sig, const union sigval v)
{
    LU_IPOSE_PASS(sigqueue, (pid, sig, v));
    if (pid == getpid() && sig > 0 && sig <= 64 && lu__ipose_to_process(sig, LU_IPOSE_L(sigqueue)))
        return 0;
    if (pid == getpid() && sig > 0 && lu__ipose_deliver(sig, SI_QUEUE))
        return 0;
    if (pid == getpid())
        lu__ipose_fatal_ahead(sig);
    lu__ipose_sync++;
    int rc = LU_IPOSE_REAL(sigqueue)(pid, sig, v);
    lu__ipose_sync--;
    return rc;
}

LU_IPOSE_EXPORT int raise(int sig)
{
    LU_IPOSE_PASS(raise, (sig));
    if (lu__ipose_deliver(sig, SI_TKILL))
        return 0;
    lu__ipose_fatal_ahead(sig);
    lu__ipose_sync++;
    int rc = LU_IPOSE_REAL(raise)(sig);
    lu__ipose_sync--;
    return rc;
}

/* ================================================================ spin hints */

LU_IPOSE_EXPORT int sched_yield(void)
{
    LU_IPOSE_PASS(sched_yield, ());
    lu_sched_yield(LU_IPOSE_L(sched_yield));
    return 0;
}

/* <pthread.h> redirects pthread_yield to sched_yield, so define it under
 * another C name; uncontrolled it is sched_yield, as in glibc. */
LU_IPOSE_EXPORT int lu_ipose_pthread_yield(void) __asm__("pthread_yield");
LU_IPOSE_EXPORT int lu_ipose_pthread_yield(void)
{
    LU_IPOSE_PASS(sched_yield, ());
    lu_sched_yield(LU_IPOSE_L(pthread_yield));
    return 0;
}

LU_IPOSE_EXPORT unsigned sleep(unsigned s)
{
    LU_IPOSE_PASS(sleep, (s));
    LU_IPOSE_SLEEP((uint64_t)s * 1000000000u, LU_IPOSE_L(sleep));
    return 0;
}

LU_IPOSE_EXPORT int usleep(useconds_t us)
{
    LU_IPOSE_PASS(usleep, (us));
    LU_IPOSE_SLEEP((uint64_t)us * 1000u, LU_IPOSE_L(usleep));
    return 0;
}

LU_IPOSE_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
    LU_IPOSE_PASS(nanosleep, (req, rem));
    if (lu_ipose_ts_bad(req) || req->tv_sec < 0) {
        errno = EINVAL;
        return -1;
    }
    LU_IPOSE_SLEEP(lu__ipose_ts_ns(req), LU_IPOSE_L(nanosleep));
    return 0;
}

LU_IPOSE_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                                    struct timespec *rem)
{
    LU_IPOSE_PASS(clock_nanosleep, (clk, flags, req, rem));
    /* glibc refuses the calling thread's own CPU clock, and the kernel the
     * clocks it cannot sleep on */
    if (lu_ipose_ts_bad(req) || clk == CLOCK_THREAD_CPUTIME_ID)
        return EINVAL;
    if (clk == CLOCK_MONOTONIC_RAW || clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE)
        return EOPNOTSUPP;
    if (!lu__ipose_clock_virtual(clk)) {
        lu_sched_yield(LU_IPOSE_L(clock_nanosleep));
    } else if (flags & TIMER_ABSTIME) {
        lu_sched_yield(LU_IPOSE_L(clock_nanosleep));
        lu_sched_time_reach(lu__ipose_clock_at(clk, req));
    } else {
        LU_IPOSE_SLEEP(lu__ipose_ts_ns(req), LU_IPOSE_L(clock_nanosleep));
    }
    return 0;
}

LU_IPOSE_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
    LU_IPOSE_PASS(clock_gettime, (clk, ts));
    if (!lu__ipose_clock_virtual(clk))
        return LU_IPOSE_REAL(clock_gettime)(clk, ts);
    lu__ipose_clock_read(clk, ts);
    return 0;
}

LU_IPOSE_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    LU_IPOSE_PASS(gettimeofday, (tv, tz));
    if (tz)
        memset(tz, 0, 2 * sizeof(int)); /* struct timezone: glibc gives zeros */
    if (tv) {
        struct timespec ts;
        lu__ipose_clock_read(CLOCK_REALTIME, &ts);
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return 0;
}

LU_IPOSE_EXPORT time_t time(time_t *t)
{
    LU_IPOSE_PASS(time, (t));
    struct timespec ts;
    lu__ipose_clock_read(CLOCK_REALTIME, &ts);
    if (t)
        *t = ts.tv_sec;
    return ts.tv_sec;
}

LU_IPOSE_EXPORT int timespec_get(struct timespec *ts, int base)
{
    LU_IPOSE_PASS(timespec_get, (ts, base));
    if (base != TIME_UTC)
        return 0;
    lu__ipose_clock_read(CLOCK_REALTIME, ts);
    return base;
}

/* ================================================================ process exit */

/* A controlled thread must not run atexit handlers or flush stdio while the
 * other threads are parked mid-operation: the scheduler reports the exit and
 * ends the process. The other threads may take steps first (the scheduling
 * point), as they do natively while a process ends. */
/* ---- signal masks and dispositions ----
 * Passed through, but the watchdog's signal stays deliverable and handled
 * by lineup: a harness that blocks every signal (all logical threads share
 * the kernel thread's mask, and it outlives the execution) or ignores the
 * real-time ones would otherwise make a spin without scheduling points end
 * as a timeout, after --timeout, instead of as divergence. */

static const sigset_t *lu__ipose_keep_watchdog(int how, const sigset_t *set, sigset_t *copy)
{
    if (!set || how == SIG_UNBLOCK)
        return set;
    *copy = *set;
    sigdelset(copy, LU_SCHED_WATCHDOG_SIGNAL);
    return copy;
}

static void lu__ipose_unheld(struct lu_sched_sigstate *st);

static uint64_t lu__ipose_sigbits(const sigset_t *set)
{
    uint64_t m = 0;
    for (int sig = 1; sig <= 64; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && sigismember(set, sig) == 1)
            m |= 1ULL << (sig - 1);
    return m;
}

/* The kernel thread's mask is every controlled thread's: the thread's own
 * (lu_sched_sigstate) is what it reads back and what the signals lineup
 * delivers itself obey; the kernel's still applies to the others. A signal
 * pending while blocked is handled where it is unblocked: a place the
 * schedule decides. */
static int lu__ipose_mask(int rc, int how, const sigset_t *set, sigset_t *old, uint64_t was)
{
    struct lu_sched_sigstate *st = lu_sched_sigstate();
    if (rc != 0 || !st)
        return rc;
    if (old)
        for (int sig = 1; sig <= 64; sig++)
            if (sig != LU_SCHED_WATCHDOG_SIGNAL && sig != 32 && sig != 33) {
                if (was >> (sig - 1) & 1)
                    sigaddset(old, sig);
                else
                    sigdelset(old, sig);
            }
    if (set) {
        uint64_t m = lu__ipose_sigbits(set);
        st->mask = how == SIG_BLOCK ? st->mask | m : how == SIG_UNBLOCK ? st->mask & ~m : m;
    }
    lu__ipose_unheld(st);
    return rc;
}

LU_IPOSE_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    LU_IPOSE_PASS(pthread_sigmask, (how, set, old));
    if (set)
        lu_sched_sigstate_point(LU_IPOSE_L(pthread_sigmask));
    sigset_t copy;
    uint64_t was = lu_sched_sigstate()->mask;
    lu__ipose_sync++;
    int rc = LU_IPOSE_REAL(pthread_sigmask)(how, lu__ipose_keep_watchdog(how, set, &copy), old);
    lu__ipose_sync--;
    return lu__ipose_mask(rc, how, set, old, was);
}

LU_IPOSE_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    LU_IPOSE_PASS(sigprocmask, (how, set, old));
    if (set)
        lu_sched_sigstate_point(LU_IPOSE_L(sigprocmask));
    sigset_t copy;
    uint64_t was = lu_sched_sigstate()->mask;
    lu__ipose_sync++;
    int rc = LU_IPOSE_REAL(sigprocmask)(how, lu__ipose_keep_watchdog(how, set, &copy), old);
    lu__ipose_sync--;
    return lu__ipose_mask(rc < 0 ? errno : rc, how, set, old, was) ? -1 : 0;
}

/* ---- the program's signal handlers ----
 * A handler the program installs under control runs behind a trampoline
 * that tells whether lineup delivered the signal at a place the schedule
 * decides (a thread signalling itself or another thread, a blocked signal
 * unblocked: lu__ipose_sync is set around those calls) or whether it
 * arrived at a time lineup does not control (a timer's, another
 * process's): then the handler runs within the step it interrupted
 * (lu_sched_async_enter). The fatal signals lineup reports itself, and its
 * watchdog's, are not wrapped. */

static struct sigaction lu__ipose_prog_sa[65]; /* the program's, of the wrapped signals */

static bool lu__ipose_wrapped(int sig)
{
    switch (sig) {
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGABRT:
    case SIGTRAP:
    case SIGSYS:
    case SIGKILL:
    case SIGSTOP:
        return false;
    default:
        return sig > 0 && sig <= 64 && sig != LU_SCHED_WATCHDOG_SIGNAL;
    }
}

static void lu__ipose_trampoline(int sig, siginfo_t *si, void *uc)
{
    struct sigaction sa = lu__ipose_prog_sa[sig]; /* the handler may change it */
    struct lu_sched_async save;
    bool async = lu__ipose_sync == 0 && lu_sched_async_enter(&save);
    if (sa.sa_flags & SA_SIGINFO)
        sa.sa_sigaction(sig, si, uc);
    else if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
        sa.sa_handler(sig);
    if (async)
        lu_sched_async_leave(&save);
}

/* Runs the program's handler of sig on the calling controlled thread, as
 * the kernel would: with sig (unless SA_NODEFER) and sa_mask blocked for
 * the thread meanwhile, the disposition reset first with SA_RESETHAND. */
static void lu__ipose_run_handler(struct lu_sched_sigstate *st, int sig, int code)
{
    struct sigaction sa = lu__ipose_prog_sa[sig];
    if (sa.sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        LU_IPOSE_REAL(sigaction)(sig, &dfl, NULL);
        lu__ipose_prog_sa[sig] = dfl;
    }
    uint64_t saved = st->mask;
    st->mask |= lu__ipose_sigbits(&sa.sa_mask) | (sa.sa_flags & SA_NODEFER ? 0 : 1ULL << (sig - 1));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = sig;
    si.si_code = code;
    si.si_pid = getpid();
    si.si_uid = getuid();
    ucontext_t uc;
    getcontext(&uc);
    if (sa.sa_flags & SA_SIGINFO)
        sa.sa_sigaction(sig, &si, &uc);
    else
        sa.sa_handler(sig);
    st->mask = saved;
    lu__ipose_unheld(st);
}

/* A signal for the calling controlled thread, sent where the schedule
 * decides (raise, kill of the process, a signal from another thread): when
 * the program handles it with a handler lineup installed for it, that
 * handler runs at once on this thread, or when the thread unblocks the
 * signal, by the thread's own mask (lu_sched_sigstate), not the kernel
 * thread's, which is every thread's. false: no such handler (the default
 * action, ignored, a handler installed before main); the caller raises it
 * for real. */
/* Whether the program handles sig with a handler lineup delivers to (its
 * trampoline is installed): then lineup takes the signal itself. */
static bool lu__ipose_handled(int sig)
{
    struct sigaction cur;
    return lu__ipose_wrapped(sig) && LU_IPOSE_REAL(sigaction)(sig, NULL, &cur) == 0 &&
           cur.sa_sigaction == lu__ipose_trampoline;
}

static bool lu__ipose_deliver(int sig, int code)
{
    struct lu_sched_sigstate *st = lu_sched_sigstate();
    if (!st || !lu__ipose_handled(sig))
        return false;
    if (st->mask >> (sig - 1) & 1)
        st->held |= 1ULL << (sig - 1);
    else
        lu__ipose_run_handler(st, sig, code);
    return true;
}

/* Delivers the held signals the thread no longer blocks, lowest first. */
static void lu__ipose_unheld(struct lu_sched_sigstate *st)
{
    uint64_t ready, *proc = lu_sched_process_sigs();
    while ((ready = st->held & ~st->mask) != 0) {
        int sig = __builtin_ctzll(ready) + 1;
        st->held &= ~(1ULL << (sig - 1));
        lu__ipose_take_signal(sig);
    }
    /* and the process's, now that this thread takes them */
    while (proc && (ready = *proc & ~st->mask) != 0) {
        int sig = __builtin_ctzll(ready) + 1;
        *proc &= ~(1ULL << (sig - 1));
        lu__ipose_take_signal(sig);
    }
}

LU_IPOSE_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    LU_IPOSE_PASS(sigaction, (sig, act, old));
    if (sig == LU_SCHED_WATCHDOG_SIGNAL)
        act = NULL; /* reported as done; lineup's handler stays */
    if (!lu__ipose_wrapped(sig))
        return LU_IPOSE_REAL(sigaction)(sig, act, old);
    /* a signal sent before the change finds the old action */
    if (act)
        lu_sched_sigstate_point(LU_IPOSE_L(sigaction));
    struct sigaction want, k, prev = lu__ipose_prog_sa[sig];
    if (act) {
        want = *act; /* act and old may be the same */
        k = want;
        if (want.sa_handler != SIG_DFL && want.sa_handler != SIG_IGN) {
            k.sa_sigaction = lu__ipose_trampoline;
            k.sa_flags |= SA_SIGINFO;
            lu_sched_note_signal_handler();
        }
    }
    int rc = LU_IPOSE_REAL(sigaction)(sig, act ? &k : NULL, old);
    if (rc != 0)
        return rc;
    if (old && old->sa_sigaction == lu__ipose_trampoline)
        *old = prev;
    if (act)
        lu__ipose_prog_sa[sig] = want;
    return 0;
}

LU_IPOSE_EXPORT __sighandler_t signal(int sig, __sighandler_t fn)
{
    LU_IPOSE_PASS(signal, (sig, fn));
    if (sig == LU_SCHED_WATCHDOG_SIGNAL) {
        struct sigaction cur;
        if (LU_IPOSE_REAL(sigaction)(sig, NULL, &cur) != 0)
            return SIG_ERR;
        return cur.sa_handler;
    }
    if (!lu__ipose_wrapped(sig))
        return LU_IPOSE_REAL(signal)(sig, fn);
    /* glibc's signal(): BSD semantics */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = SA_RESTART;
    return sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}

/* ---- exit handlers ----
 * glibc would run them in exit(), but an execution ends with the exit_group
 * system call, so under `lineup run` lineup keeps the executable's own
 * (registered by atexit and at_quick_exit, which call __cxa_atexit and
 * __cxa_at_quick_exit from the executable, by on_exit, and by C++ static
 * objects) and runs them itself. A library's go to libc: they are its
 * business. */

#define LU__IPOSE_MAX_EXIT_FNS 1024

struct lu__ipose_exit_list {
    struct {
        void (*fn)(void);
        void *arg;
        bool on_exit; /* fn(status, arg), else fn(arg, status) as glibc calls it */
    } e[LU__IPOSE_MAX_EXIT_FNS];
    int n;
    bool lost; /* a registration did not fit */
};

static struct lu__ipose_exit_list lu__ipose_atexit, lu__ipose_atquick;
static uintptr_t lu__ipose_exit_base; /* the executable's image; 0: not keeping */
static int lu__ipose_exiting = -1;    /* the controlled thread running them */
static uint32_t lu__ipose_exit_word;  /* a second exit waits on it for ever */

void lu__ipose_exit_capture(const void *base)
{
    lu__ipose_exit_base = (uintptr_t)base;
}

/* Whether the function that called the registration is the executable's. */
static bool lu__ipose_exit_keeps(const void *caller)
{
    Dl_info di;
    return lu__ipose_exit_base && dladdr(caller, &di) && (uintptr_t)di.dli_fbase == lu__ipose_exit_base;
}

static int lu__ipose_exit_keep(struct lu__ipose_exit_list *l, void (*fn)(void), void *arg, bool on_exit)
{
    if (l->n == LU__IPOSE_MAX_EXIT_FNS) {
        l->lost = true; /* said when the handlers would run */
        return 0;
    }
    l->e[l->n].fn = fn;
    l->e[l->n].arg = arg;
    l->e[l->n].on_exit = on_exit;
    l->n++;
    return 0;
}

LU_IPOSE_EXPORT int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    if (!lu__ipose_exit_keeps(__builtin_return_address(0)))
        return LU_IPOSE_REAL(__cxa_atexit)(fn, arg, dso);
    return lu__ipose_exit_keep(&lu__ipose_atexit, (void (*)(void))fn, arg, false);
}

LU_IPOSE_EXPORT int on_exit(void (*fn)(int, void *), void *arg)
{
    if (!lu__ipose_exit_keeps(__builtin_return_address(0)))
        return LU_IPOSE_REAL(on_exit)(fn, arg);
    return lu__ipose_exit_keep(&lu__ipose_atexit, (void (*)(void))fn, arg, true);
}

LU_IPOSE_EXPORT int __cxa_at_quick_exit(void (*fn)(void *), void *dso)
{
    if (!lu__ipose_exit_keeps(__builtin_return_address(0)))
        return LU_IPOSE_REAL(__cxa_at_quick_exit)(fn, dso);
    return lu__ipose_exit_keep(&lu__ipose_atquick, (void (*)(void))fn, NULL, false);
}

void lu__ipose_exit_handlers(int status, bool quick)
{
    int self = lu_sched_self();
    /* in the handler of a signal lineup did not send (lu_sched_async_enter)
     * nothing waits: the handlers run there and then */
    bool async = self < 0 && lu_sched_in_async();
    if ((self < 0 && !async) || !lu__ipose_exit_base)
        return;
    uint16_t label = quick ? LU_IPOSE_L(quick_exit) : LU_IPOSE_L(exit);
    /* a second exit is undefined in C11 (7.22.4.4): another thread's waits
     * for ever here, and the first one ends the process */
    while (!async && lu__ipose_exiting >= 0 && lu__ipose_exiting != self)
        lu_sched_futex_wait(&lu__ipose_exit_word, 0, false, label);
    if (!async)
        lu__ipose_exiting = self;
    struct lu__ipose_exit_list *l = quick ? &lu__ipose_atquick : &lu__ipose_atexit;
    if (l->lost)
        lu_sched_unsupported(quick ? "more than 1024 at_quick_exit handlers are not supported under lineup"
                                   : "more than 1024 atexit handlers are not supported under lineup");
    /* one at a time off the end: a handler may register more, or call
     * exit again (which runs the rest, as glibc does) */
    while (l->n > 0) {
        l->n--;
        void (*fn)(void) = l->e[l->n].fn;
        void *arg = l->e[l->n].arg;
        if (l->e[l->n].on_exit)
            ((void (*)(int, void *))fn)(status, arg);
        else
            ((void (*)(void *, int))fn)(arg, status);
    }
}

LU_IPOSE_EXPORT void exit(int status)
{
    if (lu_sched_self() >= 0 || lu_sched_in_async()) {
        LU_SCHED_SET_PC();
        lu_sched_exit_point(LU_IPOSE_L(exit));
        lu__ipose_exit_handlers(status, false);
        LU_SCHED_SET_PC();
        lu__sched_fatal_exit(status, LU_SCHED_EXIT_EXIT);
    }
    LU_IPOSE_REAL(exit)(status);
    __builtin_unreachable();
}

/* ---- replacing the program ---- */

/* The exit point of a controlled thread's exec: where the report shows it
 * (a handler of a signal lineup does not control makes none); the layer
 * above hears of the exec before it, and of its failure after. */
#define LU_IPOSE_EXEC_POINT(name)                                                                            \
    do {                                                                                                     \
        if (lu_sched_self() >= 0) {                                                                          \
            LU_SCHED_SET_PC();                                                                               \
            lu_sched_exit_point(LU_IPOSE_L(name));                                                           \
            LU_SCHED_SET_PC(); /* the other threads' steps at the point set it too */                        \
            lu_sched_exec_ahead(LU_IPOSE_L(name));                                                           \
        }                                                                                                    \
    } while (0)

static int lu__ipose_exec_failed(int rc)
{
    if (lu_sched_self() >= 0)
        lu_sched_exec_failed();
    return rc;
}

LU_IPOSE_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    LU_IPOSE_EXEC_POINT(execve);
    return lu__ipose_exec_failed(LU_IPOSE_REAL(execve)(path, argv, envp));
}

LU_IPOSE_EXPORT int execv(const char *path, char *const argv[])
{
    LU_IPOSE_EXEC_POINT(execv);
    return lu__ipose_exec_failed(LU_IPOSE_REAL(execv)(path, argv));
}

LU_IPOSE_EXPORT int execvp(const char *file, char *const argv[])
{
    LU_IPOSE_EXEC_POINT(execvp);
    return lu__ipose_exec_failed(LU_IPOSE_REAL(execvp)(file, argv));
}

LU_IPOSE_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    LU_IPOSE_EXEC_POINT(execvpe);
    return lu__ipose_exec_failed(LU_IPOSE_REAL(execvpe)(file, argv, envp));
}

LU_IPOSE_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    LU_IPOSE_EXEC_POINT(fexecve);
    return lu__ipose_exec_failed(LU_IPOSE_REAL(fexecve)(fd, argv, envp));
}

/* The arguments of execl and its kin, up to the NULL, as an argv; *envp
 * gets the pointer after the NULL (execle). */
static size_t lu__ipose_exec_count(va_list ap)
{
    size_t n = 1;
    while (va_arg(ap, const char *))
        n++;
    return n;
}

static void lu__ipose_exec_fill(const char **argv, const char *arg, va_list ap, size_t n, char *const **envp)
{
    argv[0] = arg;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, const char *);
    argv[n] = NULL;
    (void)va_arg(ap, const char *); /* the NULL */
    if (envp)
        *envp = va_arg(ap, char *const *);
}

#define LU_IPOSE_EXECL(name, first, call, with_env)                                                          \
    LU_IPOSE_EXPORT int name(const char *first, const char *arg, ...)                                        \
    {                                                                                                        \
        LU_IPOSE_EXEC_POINT(name);                                                                           \
        /* declared nonnull, but a program may pass NULL all the same */                                     \
        const char *a0 = arg;                                                                                \
        __asm__("" : "+r"(a0));                                                                              \
        va_list ap, cp;                                                                                      \
        va_start(ap, arg);                                                                                   \
        va_copy(cp, ap);                                                                                     \
        size_t n = a0 ? lu__ipose_exec_count(cp) : 0;                                                        \
        va_end(cp);                                                                                          \
        const char *argv[n + 1];                                                                             \
        char *const *envp = environ;                                                                         \
        if (a0) {                                                                                            \
            lu__ipose_exec_fill(argv, a0, ap, n, with_env ? &envp : NULL);                                   \
        } else {                                                                                             \
            argv[0] = NULL;                                                                                  \
            if (with_env)                                                                                    \
                envp = va_arg(ap, char *const *);                                                            \
        }                                                                                                    \
        va_end(ap);                                                                                          \
        (void)envp;                                                                                          \
        return lu__ipose_exec_failed(call);                                                                  \
    }

LU_IPOSE_EXECL(execl, path, LU_IPOSE_REAL(execv)(path, (char *const *)argv), false)
LU_IPOSE_EXECL(execlp, file, LU_IPOSE_REAL(execvp)(file, (char *const *)argv), false)
LU_IPOSE_EXECL(execle, path, LU_IPOSE_REAL(execve)(path, (char *const *)argv, envp), true)

LU_IPOSE_EXPORT void _exit(int status)
{
    if (lu_sched_self() >= 0 || lu_sched_in_async()) {
        LU_SCHED_SET_PC();
        lu_sched_exit_point(LU_IPOSE_L(_exit));
        lu__sched_fatal_exit(status, LU_SCHED_EXIT_UEXIT);
    }
    LU_IPOSE_REAL(_exit)(status);
    __builtin_unreachable();
}

LU_IPOSE_EXPORT void _Exit(int status)
{
    if (lu_sched_self() >= 0 || lu_sched_in_async()) {
        LU_SCHED_SET_PC();
        lu_sched_exit_point(LU_IPOSE_L(_Exit));
        lu__sched_fatal_exit(status, LU_SCHED_EXIT_UEXIT_C);
    }
    LU_IPOSE_REAL(_Exit)(status);
    __builtin_unreachable();
}

LU_IPOSE_EXPORT void quick_exit(int status)
{
    if (lu_sched_self() >= 0 || lu_sched_in_async()) {
        LU_SCHED_SET_PC();
        lu_sched_exit_point(LU_IPOSE_L(quick_exit));
        lu__ipose_exit_handlers(status, true);
        LU_SCHED_SET_PC();
        lu__sched_fatal_exit(status, LU_SCHED_EXIT_QUICK_EXIT);
    }
    LU_IPOSE_REAL(quick_exit)(status);
    __builtin_unreachable();
}

/* ================================================================ C11 threads */

/* glibc's mapping of pthread errors to thrd_* results. */
static inline int lu_ipose_thrd_ret(int rc)
{
    switch (rc) {
    case 0:
        return thrd_success;
    case ENOMEM:
        return thrd_nomem;
    case ETIMEDOUT:
        return thrd_timedout;
    case EBUSY:
        return thrd_busy;
    default:
        return thrd_error;
    }
}

LU_IPOSE_EXPORT int thrd_create(thrd_t *th, thrd_start_t fn, void *arg)
{
    LU_IPOSE_PASS(thrd_create, (th, fn, arg));
    struct lu_ipose_start st = {.c11 = fn, .arg = arg, .out = (uint64_t *)th};
    int tid = lu_sched_create_thread(lu_ipose_thread_main, &st, 0, LU_IPOSE_L(thrd_create));
    if (tid < 0)
        lu__ipose_too_many_threads(); /* as pthread_create */
    return lu_ipose_created(tid, (uint64_t *)th, false);
}

LU_IPOSE_EXPORT int thrd_join(thrd_t th, int *res)
{
    int tid = lu_ipose_tid(th);
    if (lu_sched_self() < 0)
        return tid >= 0 ? thrd_error : LU_IPOSE_REAL(thrd_join)(th, res);
    LU_SCHED_SET_PC();
    if (tid < 0)
        lu_sched_unsupported("thrd_join of a thread lineup did not create is not supported");
    void *ret = NULL;
    int rc = lu_sched_join(tid, &ret, LU_IPOSE_L(thrd_join));
    if (rc == 0 && res)
        *res = (int)(intptr_t)ret;
    return lu_ipose_thrd_ret(rc);
}

LU_IPOSE_EXPORT int thrd_detach(thrd_t th)
{
    int tid = lu_ipose_tid(th);
    if (tid < 0)
        return LU_IPOSE_REAL(thrd_detach)(th);
    if (lu_sched_self() < 0)
        return thrd_error;
    return lu_ipose_thrd_ret(lu_sched_detach(tid));
}

LU_IPOSE_EXPORT void thrd_exit(int res)
{
    if (lu_sched_self() >= 0)
        lu__ipose_unwind((void *)(intptr_t)res); /* glibc's thrd_exit is pthread_exit */
    LU_IPOSE_REAL(thrd_exit)(res);
    __builtin_unreachable();
}

LU_IPOSE_EXPORT thrd_t thrd_current(void)
{
    int self = lu_sched_self();
    return self >= 0 ? (thrd_t)lu_ipose_handle(self) : LU_IPOSE_REAL(thrd_current)();
}

/* <threads.h> has an extern inline thrd_equal too. */
LU_IPOSE_EXPORT int lu_ipose_thrd_equal(thrd_t a, thrd_t b) __asm__("thrd_equal");
LU_IPOSE_EXPORT int lu_ipose_thrd_equal(thrd_t a, thrd_t b)
{
    return a == b;
}

LU_IPOSE_EXPORT void thrd_yield(void)
{
    LU_IPOSE_PASS_VOID(thrd_yield, ());
    lu_sched_yield(LU_IPOSE_L(thrd_yield));
}

LU_IPOSE_EXPORT int thrd_sleep(const struct timespec *req, struct timespec *rem)
{
    LU_IPOSE_PASS(thrd_sleep, (req, rem));
    if (lu_ipose_ts_bad(req))
        return -2; /* glibc: negative other than -1 for errors */
    LU_IPOSE_SLEEP(lu__ipose_ts_ns(req), LU_IPOSE_L(thrd_sleep));
    return 0;
}

LU_IPOSE_EXPORT int mtx_init(mtx_t *m, int type)
{
    int rc = LU_IPOSE_REAL(mtx_init)(m, type);
    if (rc == thrd_success && lu_sched_self() >= 0)
        lu_sched_mutex_init(m, (type & mtx_recursive) ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
    return rc;
}

LU_IPOSE_EXPORT void mtx_destroy(mtx_t *m)
{
    LU_IPOSE_PASS_VOID(mtx_destroy, (m));
    if (lu_sched_mutex_destroy(m) == 0)
        LU_IPOSE_REAL(mtx_destroy)(m);
}

LU_IPOSE_EXPORT int mtx_lock(mtx_t *m)
{
    LU_IPOSE_PASS(mtx_lock, (m));
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(lu_sched_mutex_lock(m, LU_IPOSE_L(mtx_lock)));
}

LU_IPOSE_EXPORT int mtx_trylock(mtx_t *m)
{
    LU_IPOSE_PASS(mtx_trylock, (m));
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(lu_sched_mutex_trylock(m, LU_IPOSE_L(mtx_trylock)));
}

LU_IPOSE_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
    LU_IPOSE_PASS(mtx_timedlock, (m, ts));
    if (lu_ipose_ts_bad(ts))
        return thrd_error;
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(
        lu_ipose_timed(lu_sched_mutex_timedlock(m, LU_IPOSE_L(mtx_timedlock)), CLOCK_REALTIME, ts));
}

LU_IPOSE_EXPORT int mtx_unlock(mtx_t *m)
{
    LU_IPOSE_PASS(mtx_unlock, (m));
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(lu_sched_mutex_unlock(m, LU_IPOSE_L(mtx_unlock)));
}

LU_IPOSE_EXPORT int cnd_init(cnd_t *c)
{
    return LU_IPOSE_REAL(cnd_init)(c);
}

LU_IPOSE_EXPORT void cnd_destroy(cnd_t *c)
{
    LU_IPOSE_PASS_VOID(cnd_destroy, (c));
    if (lu_sched_cond_destroy(c) == 0)
        LU_IPOSE_REAL(cnd_destroy)(c);
}

LU_IPOSE_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
    LU_IPOSE_PASS(cnd_wait, (c, m));
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(lu_sched_cond_wait(c, m, LU_IPOSE_L(cnd_wait)));
}

LU_IPOSE_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
    LU_IPOSE_PASS(cnd_timedwait, (c, m, ts));
    if (lu_ipose_ts_bad(ts))
        return thrd_error;
    lu_ipose_adopt_mutex(m);
    return lu_ipose_thrd_ret(
        lu_ipose_timed(lu_sched_cond_timedwait(c, m, LU_IPOSE_L(cnd_timedwait)), CLOCK_REALTIME, ts));
}

LU_IPOSE_EXPORT int cnd_signal(cnd_t *c)
{
    LU_IPOSE_PASS(cnd_signal, (c));
    return lu_ipose_thrd_ret(lu_sched_cond_signal(c, LU_IPOSE_L(cnd_signal)));
}

LU_IPOSE_EXPORT int cnd_broadcast(cnd_t *c)
{
    LU_IPOSE_PASS(cnd_broadcast, (c));
    return lu_ipose_thrd_ret(lu_sched_cond_broadcast(c, LU_IPOSE_L(cnd_broadcast)));
}

LU_IPOSE_EXPORT void call_once(once_flag *o, void (*fn)(void))
{
    LU_IPOSE_PASS_VOID(call_once, (o, fn));
    if (!lu_ipose_once_done(o))
        lu_sched_once(o, fn, LU_IPOSE_L(call_once));
}

LU_IPOSE_EXPORT int tss_create(tss_t *k, tss_dtor_t dtor)
{
    if (lu_sched_self() < 0 && !lu_sched_in_async()) {
        int rc = LU_IPOSE_REAL(tss_create)(k, dtor);
        lu__ipose_real_key(rc == thrd_success ? 0 : -1, 1);
        return rc;
    }
    LU_IPOSE_PASS(tss_create, (k, dtor));
    unsigned mk;
    if (lu_sched_key_create(&mk, dtor, lu__ipose_keys_taken()) != 0)
        return thrd_error;
    *k = LU_IPOSE_KEY_TAG | mk;
    return thrd_success;
}

LU_IPOSE_EXPORT void tss_delete(tss_t k)
{
    bool controlled = lu_sched_self() >= 0;
    if (lu_ipose_key_tagged(k)) {
        if (controlled)
            lu_sched_key_delete(k & LU_IPOSE_KEY_MASK);
        return;
    }
    if (controlled) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("tss_delete of a key created outside lineup's control is not supported");
    }
    LU_IPOSE_REAL(tss_delete)(k);
    lu__ipose_real_key(0, -1);
}

LU_IPOSE_EXPORT void *tss_get(tss_t k)
{
    int self = lu_sched_self();
    if (lu_ipose_key_tagged(k))
        return self >= 0 ? lu_sched_getspecific(k & LU_IPOSE_KEY_MASK) : NULL;
    if (self < 0)
        return LU_IPOSE_REAL(tss_get)(k);
    return k < PTHREAD_KEYS_MAX ? lu_ipose_ftsd_row(self)[k] : NULL;
}

LU_IPOSE_EXPORT int tss_set(tss_t k, void *v)
{
    int self = lu_sched_self();
    if (lu_ipose_key_tagged(k))
        return self >= 0 ? lu_ipose_thrd_ret(lu_sched_setspecific(k & LU_IPOSE_KEY_MASK, v)) : thrd_error;
    if (self < 0)
        return LU_IPOSE_REAL(tss_set)(k, v);
    if (k >= PTHREAD_KEYS_MAX)
        return thrd_error;
    lu_ipose_ftsd_row(self)[k] = v;
    return thrd_success;
}

/* ---- futexes, and the thread-id system calls ---- */

/* The wrapper passes six argument words whatever the call takes (as
 * glibc's own does): reading them all is how a variadic forwarder does it
 * on x86-64. */
LU_IPOSE_EXPORT long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    int self = lu_sched_self();
    if (self >= 0 && number == SYS_gettid)
        return lu__ipose_tid_of(self);
    /* in the handler of a signal lineup did not send: no model can be used */
    bool async = self < 0 && lu_sched_in_async();
    if (async && (number == SYS_futex || number == SYS_tkill || number == SYS_tgkill || number == SYS_exit)) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("a pthread call in the handler of a signal that arrived at a time lineup does "
                             "not control (a timer's, another process's) is not supported under lineup");
    }
    if (self >= 0 && (number == SYS_sched_setaffinity || number == SYS_sched_getaffinity ||
                      number == SYS_sched_setscheduler || number == SYS_sched_getscheduler ||
                      number == SYS_sched_setparam || number == SYS_sched_getparam ||
                      number == SYS_sched_rr_get_interval)) {
        pid_t k = lu__ipose_kernel_tid((pid_t)a[0]);
        if (k < 0) {
            errno = ESRCH;
            return -1;
        }
        a[0] = k;
    }
    /* the process's own signal: as kill() */
    if (self >= 0 && number == SYS_kill && lu_ipose_kills_self((pid_t)a[0])) {
        LU_SCHED_SET_PC();
        return kill((pid_t)a[0], (int)a[1]);
    }
    if (self >= 0 && (number == SYS_tkill || number == SYS_tgkill)) {
        LU_SCHED_SET_PC();
        if (number == SYS_tkill)
            return lu__ipose_tgkill(getpid(), (pid_t)a[0], (int)a[1], LU_IPOSE_L(tgkill));
        return lu__ipose_tgkill((pid_t)a[0], (pid_t)a[1], (int)a[2], LU_IPOSE_L(tgkill));
    }
    /* the process ends as with _exit; a thread that ends by the system
     * call would take the kernel thread every controlled thread runs on */
    if ((self >= 0 || async) && number == SYS_exit_group) {
        LU_SCHED_SET_PC();
        lu_sched_exit_point(LU_IPOSE_L(exit_group));
        lu__sched_fatal_exit((int)a[0], LU_SCHED_EXIT_EXIT_GROUP);
    }
    if (self >= 0 && number == SYS_exit) {
        LU_SCHED_SET_PC();
        lu_sched_unsupported("syscall(SYS_exit) is not supported under lineup");
    }
    if (number != SYS_futex || self < 0)
        return LU_IPOSE_REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    LU_SCHED_SET_PC();
    uint32_t *word = (uint32_t *)a[0];
    int cmd = (int)a[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    const struct timespec *ts = (const struct timespec *)a[3];
    bool bitset = cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET;
    if (bitset && (uint32_t)a[5] != FUTEX_BITSET_MATCH_ANY)
        lu_sched_unsupported(
            "syscall(SYS_futex) with a bitset other than FUTEX_BITSET_MATCH_ANY is not supported "
            "under lineup");
    int rc;
    switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
        if ((uintptr_t)word % 4 != 0 || (ts && lu_ipose_ts_bad(ts))) {
            errno = EINVAL;
            return -1;
        }
        /* a wait that gives up has waited until its deadline, as the
         * other timed waits have: FUTEX_WAIT's timeout is relative (to
         * now), FUTEX_WAIT_BITSET's absolute, on CLOCK_MONOTONIC unless
         * FUTEX_CLOCK_REALTIME (an audit: a futex deadline loop that
         * recomputed the time left never reached it, a false livelock) */
        uint64_t wake = ts && !bitset ? lu__ipose_time_add(lu_sched_time(), lu__ipose_ts_ns(ts)) : 0;
        rc = lu_sched_futex_wait(word, (uint32_t)a[2], ts != NULL, LU_IPOSE_L(syscall));
        if (rc < 0)
            lu_sched_unsupported(
                "syscall(SYS_futex) on the memory of a pthread object is not supported under "
                "lineup");
        if (rc == ETIMEDOUT && bitset)
            lu_ipose_timed(rc, ((int)a[1] & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC, ts);
        else if (rc == ETIMEDOUT)
            lu_sched_time_reach(wake);
        if (rc) {
            errno = rc;
            return -1;
        }
        return 0;
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
        if ((uintptr_t)word % 4 != 0) {
            errno = EINVAL;
            return -1;
        }
        rc = lu_sched_futex_wake(word, (int)a[2], LU_IPOSE_L(syscall));
        if (rc < 0)
            lu_sched_unsupported(
                "syscall(SYS_futex) on the memory of a pthread object is not supported under "
                "lineup");
        return rc;
    default:
        lu_sched_unsupported(
            "syscall(SYS_futex) is supported under lineup with FUTEX_WAIT and FUTEX_WAKE (and "
            "their _BITSET forms) only");
    }
}
