/*
 * The runtime of whole programs (`lineup run`), inside liblineup.so:
 *
 *  - the verifier conventions of lineup.h (__VERIFIER_nondet_*, _assume,
 *    _atomic_begin/end, reach_error) as scheduler choices and sections;
 *  - the fork server: a program built by lineup-cc that `lineup run`
 *    starts with LINEUP_RUN in its environment is taken over before main
 *    (liblineup.so defines __libc_start_main ahead of libc). The program's
 *    constructors run once; then, instead of main, the server explores: for
 *    each execution it forks a child that runs main under lu_sched_run once
 *    and ends, so every execution starts from the program's initial state
 *    (globals, heap, stdio) without re-executing it. The scheduler and its
 *    DFS state stay in the server (lu_sched_fork_prepare/_done); the trace,
 *    what the child saw and its output go through memory shared with the
 *    driver, see lu_drv_run.h.
 *
 * Without LINEUP_RUN everything here passes through: the program runs
 * natively, nondet values are 0, assumptions that fail end it with status 0.
 */
#define _GNU_SOURCE
#include "lineup.h"
#include "lu_drv_run.h"
#include "lu_rt.h"
#include "lu_ipose.h"
#include "lu_sched.h"

#if __has_include("lu_ipose_race.h")
#include "lu_ipose_race.h"
#define LU__HAVE_RACES 1
#else
#define LU__HAVE_RACES 0
#endif

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LU_EXPORT __attribute__((visibility("default")))

/* Run mode: the shared region (NULL otherwise), and whether this process is
 * an execution's child. */
static struct lu_run_shm *R;
static bool lu__in_child;

/*
 * Lanes: with --jobs J the server runs J executions at once, each lane with
 * a child, a scheduler and the areas its children write (the execution's
 * record, its schedule, its point log, its output) of its own. With one
 * lane those areas are R's, which the driver reads; with more, each lane
 * has a mapping of its own, and an execution the driver is to see is
 * copied into R first (lu__report). In an exhaustive round the lanes
 * explore items, DFS stacks (lu_sched_stack_next): a lane with work gives
 * the alternatives nearest the root to idle ones, and goes on with its
 * own scheduler (lu__dfs_give). docs/run.md, "Parallel search".
 */
struct lu__lane {
    struct lu_run_exec *exec;
    struct lu_sched_trace *trace;
    struct lu_run_point *plog;
    int out_fd;
    off_t out_trimmed; /* the output before this was given back (lu__out_trim) */
    /* the execution under way (pid 0: none), or prepared (ready) */
    pid_t pid;
    int pfd;
    double waited; /* seconds it has run, without time lineup spent stopped */
    bool ready;    /* s holds an execution prepared by lu_sched_fork_prepare, not started */
    struct lu_sched *s;
    uint64_t *tally; /* the summary's count of such executions (exhaustive, sampled) */
    int strategy, bound, bound_kind, depth;
    uint64_t seed;
    /* DFS: the item g[0..g_len), of which the first g_base steps are frozen */
    bool has_item;
    struct lu_sched_step *g;
    uint32_t g_len, g_base;
    uint64_t ran; /* executions on s */
    /* randomized strategies: one scheduler per member of the rotation */
    struct lu_sched *mix[8];
};

static struct lu__lane lu__lanes[LU_RUN_MAX_JOBS];
static unsigned lu__nlanes = 1;
/* The lane whose execution this process runs (a child) or handles (the
 * server). */
static struct lu__lane *X = &lu__lanes[0];

static struct lu_run_exec *lu__E(void)
{
    return R && lu__in_child ? X->exec : NULL;
}

static void lu__copy(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < n; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

/* ================================================= verifier conventions */

enum lu__nkind { LU__N_INT, LU__N_BOOL, LU__N_PTR, LU__N_FLOAT };

struct lu__ntype {
    const char *name;
    int kind;
    bool is_signed;
};

#define LU__NONDET_TYPES(X)                                                                                  \
    X(bool, LU__N_BOOL, false)                                                                               \
    X(_Bool, LU__N_BOOL, false)                                                                              \
    X(char, LU__N_INT, true)                                                                                 \
    X(uchar, LU__N_INT, false)                                                                               \
    X(short, LU__N_INT, true)                                                                                \
    X(ushort, LU__N_INT, false)                                                                              \
    X(int, LU__N_INT, true)                                                                                  \
    X(uint, LU__N_INT, false)                                                                                \
    X(unsigned, LU__N_INT, false)                                                                            \
    X(long, LU__N_INT, true)                                                                                 \
    X(ulong, LU__N_INT, false)                                                                               \
    X(longlong, LU__N_INT, true)                                                                             \
    X(ulonglong, LU__N_INT, false)                                                                           \
    X(size_t, LU__N_INT, false)                                                                              \
    X(u8, LU__N_INT, false)                                                                                  \
    X(u16, LU__N_INT, false)                                                                                 \
    X(u32, LU__N_INT, false)                                                                                 \
    X(u64, LU__N_INT, false)                                                                                 \
    X(loff_t, LU__N_INT, true)                                                                               \
    X(sector_t, LU__N_INT, false)                                                                            \
    X(int128, LU__N_INT, true)                                                                               \
    X(uint128, LU__N_INT, false)                                                                             \
    X(float, LU__N_FLOAT, true)                                                                              \
    X(double, LU__N_FLOAT, true)                                                                             \
    X(pointer, LU__N_PTR, false)                                                                             \
    X(pchar, LU__N_PTR, false)

enum {
#define LU__NT_ENUM(suffix, kind, sgn) LU__NT_##suffix,
    LU__NONDET_TYPES(LU__NT_ENUM)
#undef LU__NT_ENUM
};

static const struct lu__ntype lu__ntypes[] = {
#define LU__NT_ROW(suffix, kind, sgn) {"__VERIFIER_nondet_" #suffix, kind, sgn},
    LU__NONDET_TYPES(LU__NT_ROW)
#undef LU__NT_ROW
};

/* What a non-null nondet pointer points to: zeroed, writable, so that a
 * program may store through it. */
static char lu__nondet_buf[64] __attribute__((aligned(16)));

/* The domain (documented in lineup.h and docs/run.md): integers and
 * floating types 0, 1, ..., N-1, and -1 for signed ones (N = --nondet-range,
 * default 4); bool 0 and 1; pointers NULL and a valid non-null pointer.
 * Choice 0 is value 0, the first value DFS tries. Outside an execution:
 * always 0. */
static int64_t lu__nondet(int type, uintptr_t pc)
{
    const struct lu__ntype *ty = &lu__ntypes[type];
    if (lu_sched_self() < 0)
        return 0;
    int range = R ? R->cfg.nondet_range : 4;
    if (range < 1)
        range = 1;
    int n = ty->kind == LU__N_BOOL || ty->kind == LU__N_PTR ? 2 : range + (ty->is_signed ? 1 : 0);
    int i = lu_sched_choose(n, 0);
    int64_t v = (ty->kind == LU__N_INT || ty->kind == LU__N_FLOAT) && i >= range ? -1 : i;
    struct lu_run_exec *E = lu__E();
    if (E && E->ninputs < LU_RUN_MAX_INPUTS) {
        struct lu_run_input *in = &E->inputs[E->ninputs++];
        in->tid = (int16_t)lu_sched_self();
        in->type = (uint16_t)type;
        lu__copy(in->name, sizeof in->name, ty->name);
        in->value = v;
        in->at.pc = pc;
        in->at.call = 1;
    }
    return v;
}

#define LU__RA() ((uintptr_t)__builtin_return_address(0))
#define LU__NONDET_INT(ret, suffix)                                                                          \
    LU_EXPORT ret __VERIFIER_nondet_##suffix(void);                                                          \
    LU_EXPORT ret __VERIFIER_nondet_##suffix(void)                                                           \
    {                                                                                                        \
        return (ret)lu__nondet(LU__NT_##suffix, LU__RA());                                                   \
    }

LU__NONDET_INT(_Bool, bool)
LU__NONDET_INT(_Bool, _Bool)
LU__NONDET_INT(char, char)
LU__NONDET_INT(unsigned char, uchar)
LU__NONDET_INT(short, short)
LU__NONDET_INT(unsigned short, ushort)
LU__NONDET_INT(int, int)
LU__NONDET_INT(unsigned int, uint)
LU__NONDET_INT(unsigned, unsigned)
LU__NONDET_INT(long, long)
LU__NONDET_INT(unsigned long, ulong)
LU__NONDET_INT(long long, longlong)
LU__NONDET_INT(unsigned long long, ulonglong)
LU__NONDET_INT(size_t, size_t)
LU__NONDET_INT(unsigned char, u8)
LU__NONDET_INT(unsigned short, u16)
LU__NONDET_INT(unsigned int, u32)
LU__NONDET_INT(unsigned long long, u64)
LU__NONDET_INT(long, loff_t)
LU__NONDET_INT(unsigned long, sector_t)
#ifdef __SIZEOF_INT128__
LU__NONDET_INT(__int128, int128)
LU__NONDET_INT(unsigned __int128, uint128)
#endif
LU__NONDET_INT(float, float)
LU__NONDET_INT(double, double)

LU_EXPORT void *__VERIFIER_nondet_pointer(void)
{
    return lu__nondet(LU__NT_pointer, LU__RA()) ? (void *)lu__nondet_buf : NULL;
}

LU_EXPORT char *__VERIFIER_nondet_pchar(void)
{
    return lu__nondet(LU__NT_pchar, LU__RA()) ? lu__nondet_buf : NULL;
}

LU_EXPORT void __VERIFIER_assume(int cond)
{
    if (cond)
        return;
    if (lu_sched_self_any() >= 0)
        lu_sched_discard("__VERIFIER_assume: the condition is false");
    /* natively: the rest of this run is not a behaviour of the program */
    exit(0);
}

LU_EXPORT void __VERIFIER_atomic_begin(void)
{
    if (lu_sched_self() >= 0) {
        LU_SCHED_SET_PC();
        lu_sched_section_begin(LU_RT_L_ATOMIC_BEGIN);
    }
}

LU_EXPORT void __VERIFIER_atomic_end(void)
{
    if (lu_sched_self() >= 0)
        lu_sched_section_end();
}

static void lu__reached(uintptr_t pc) __attribute__((noreturn));
static void lu__reached(uintptr_t pc)
{
    struct lu_run_exec *E = lu__E();
    if (E && E->reach_tid < 0) {
        E->reach_tid = lu_sched_self_any();
        E->reach_at.pc = pc;
        E->reach_at.call = 1;
    }
    /* the program's own definition would usually assert(0): say so too */
    static const char msg[] = "reach_error() called\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nowhere to say it */
    }
    abort();
}

/* SV-COMP programs usually define reach_error themselves; theirs wins
 * (the executable comes first in symbol lookup) and then normally ends in
 * __assert_fail, which is seen below. */
LU_EXPORT void reach_error(void)
{
    lu__reached(LU__RA());
}

LU_EXPORT void __VERIFIER_error(void)
{
    lu__reached(LU__RA());
}

/* glibc's assert(): recorded with its text and caller in run mode, then
 * the real one prints and aborts as always. */
typedef void (*lu__assert_fn)(const char *, const char *, unsigned, const char *) __attribute__((noreturn));

LU_EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *func)
    __attribute__((noreturn));
LU_EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *func)
{
    struct lu_run_exec *E = lu__E();
    if (E && E->assert_tid < 0) {
        E->assert_tid = lu_sched_self_any() >= 0 ? lu_sched_self_any() : 0;
        E->assert_line = line;
        lu__copy(E->assert_expr, sizeof E->assert_expr, expr);
        lu__copy(E->assert_file, sizeof E->assert_file, file);
        lu__copy(E->assert_func, sizeof E->assert_func, func);
        E->assert_at.pc = LU__RA();
        E->assert_at.call = 1;
    }
    lu__assert_fn real = (lu__assert_fn)dlsym(RTLD_NEXT, "__assert_fail");
    if (real)
        real(expr, file, line, func);
    abort();
}

/* ================================================= the fork server */

typedef int (*lu__main_fn)(int, char **, char **);

static lu__main_fn lu__main;
static int lu__argc;
static char **lu__argv, **lu__envp;
static int lu__cmd_fd = -1, lu__rep_fd = -1, lu__out_fd = -1;
static pid_t lu__server_pid;

/* SIGINT, SIGTERM and SIGHUP stop the search rather than the server: the
 * driver forwards its own, and a terminal's Ctrl-C reaches the whole
 * process group. The program's own dispositions (after its constructors)
 * are given back to each execution. */
static const int lu__stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction lu__prog_sa[3];
/* The program's SIGCHLD disposition: a constructor that ignores it would
 * have the kernel reap the server's children, whose status then says
 * nothing (a crash would look like exit status 0). The server waits with
 * the default, each execution gets the program's back. */
static struct sigaction lu__prog_chld;
static bool lu__stop_handled;
static volatile sig_atomic_t lu__stop_sig;

static bool lu__stop_graceful; /* not a replay: a stop request ends the search */

static void lu__on_stop(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* sent by an execution (the program kills its parent, natively a
     * shell): no request to stop, and the execution goes on as it would */
    if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL)) {
        for (unsigned i = 0; i < lu__nlanes; i++)
            if (lu__lanes[i].pid > 0 && si->si_pid == lu__lanes[i].pid)
                return;
        /* one that runs before fork's return stored its pid */
        if (si->si_pid > 0 && lu_sched_parent_of(si->si_pid) == getpid())
            return;
    }
    if (!lu__stop_graceful) {
        /* a replay is one execution: interrupted, everything just ends */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (!lu__stop_sig)
        lu__stop_sig = sig;
}

/* Child: each controlled thread's shadow call stack, published at its
 * scheduling points, for "where was each thread". */
static struct lu__ipose_shadow *lu__shadows[LU_SCHED_MAX_THREADS];

static double lu__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t lu__mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t lu__h(uint64_t h, uint64_t v)
{
    return lu__mix(h ^ lu__mix(v + 0x9e3779b97f4a7c15ULL));
}

static uint64_t lu__hstr(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = lu__h(h, (unsigned char)*s);
    return h;
}

/* ---- the child: one execution ---- */

static void lu__frames_of(int tid, struct lu_run_thread *th)
{
    uintptr_t pcs[LU_RUN_FRAMES];
    int n = lu__shadows[tid] ? lu__ipose_backtrace_of(lu__shadows[tid], pcs, LU_RUN_FRAMES) : 0;
    th->nframes = (uint32_t)(n > 0 ? n : 0);
    for (int i = 0; i < n; i++) {
        th->frames[i].pc = pcs[i];
        th->frames[i].call = 1;
    }
}

/* Whether the creator of the thread the last create announced is still
 * inside that create: the thread exists (the announcement is a scheduling
 * point, and others may have run before the create), has not finished and
 * has not reached its first scheduling point. Its last point says "about
 * to pthread_create", which it is past. Signal context. */
static void lu__creating(struct lu_run_exec *E)
{
    uint32_t vc;
    int n = E->starting;
    E->creating = -1;
    if (n >= 0 && n < LU_SCHED_MAX_THREADS && lu_sched_vc(n, &vc, 1) >= 0 && !lu_sched_finished(n) &&
        !E->th[n].at.pc)
        E->creating = E->starter;
}

/* The process is about to die with threads mid-way: what each one was
 * doing at its last scheduling point. Plain stores only (signal context). */
static void lu__threads_at_death(struct lu_run_exec *E)
{
    lu__creating(E);
    /* threads that finished before their first scheduling point were never
     * seen by lu__on_point: count them with the scheduler (the caller is a
     * controlled thread, or lineup's own code, which gets -1) */
    uint32_t vc;
    while (E->nthreads < LU_SCHED_MAX_THREADS && lu_sched_vc(E->nthreads, &vc, 1) >= 0)
        E->nthreads++;
    for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++) {
        struct lu_run_thread *th = &E->th[i];
        lu__frames_of(i, th);
        /* a thread that left its instrumented start routine has no frames;
         * one never seen at a scheduling point ended before reaching one;
         * one that called pthread_exit keeps its frames, but the scheduler
         * knows it finished */
        if (lu_sched_finished(i))
            th->state = LU_RUN_TS_FINISHED;
        else
            th->state = i == 0 || (th->nframes && th->at.pc) ? LU_RUN_TS_LIVE : LU_RUN_TS_FINISHED;
    }
}

static void lu__on_point(void *arg, int tid, enum lu_sched_kind k, uint16_t label, uintptr_t pc)
{
    (void)arg;
    struct lu_run_exec *E = X->exec;
    if (tid < 0 || tid >= LU_SCHED_MAX_THREADS)
        return;
    struct lu_run_thread *th = &E->th[tid];
    th->kind = k;
    th->label = label;
    th->at.pc = pc;
    th->at.call = 1;
    if (tid >= E->nthreads)
        E->nthreads = tid + 1;
    if (tid == E->starting)
        E->starting = -1;
    if (k == LU_SCHED_K_CREATE) {
        /* the new thread runs to its first scheduling point before its
         * creator goes on: if it blocks in a call lineup does not control
         * on the way, it is the one a timeout must name */
        uint32_t vc;
        int n = E->nthreads;
        while (n < LU_SCHED_MAX_THREADS && lu_sched_vc(n, &vc, 1) >= 0)
            n++;
        if (n < LU_SCHED_MAX_THREADS) {
            E->starting = n;
            E->starter = tid;
            E->th[n].state = LU_RUN_TS_NONE;
        }
    }
    /* (a signal sent to another thread changes what that one is at) */
    if (tid == lu_sched_self_any())
        lu__shadows[tid] = lu__ipose_shadow_self();
    if (E->nplog < R->trace_cap)
        X->plog[E->nplog++] = (struct lu_run_point){X->trace->len, (int16_t)tid, label, pc};
}

/* Called on the dying thread: a signal, exit() (or main returning), the
 * divergence watchdog. Async-signal-safe except for the exit path, which
 * runs on an ordinary controlled thread. */
static void lu__on_fatal(void *arg, int kind, int code, int tid, uintptr_t pc)
{
    (void)arg;
    struct lu_run_exec *E = X->exec;
    /* an exec: the thread's exit point names it (lu__exec_note) */
    if (kind == LU_SCHED_FATAL_EXEC || kind == LU_SCHED_FATAL_NONE)
        return;
    if (kind == LU_SCHED_FATAL_EXIT) {
        E->exited = 1;
        E->status = code & 0xff;
        E->exit_fn = lu_sched_fatal_exit_fn();
        E->exit_tid = tid;
        E->exit_at.pc = pc;
        E->exit_at.call = 1;
        lu__threads_at_death(E);
        /* what exit() does before the end, after the exit handlers
         * (lu__ipose_exit_handlers), unlike _exit, _Exit and quick_exit */
        if (E->exit_fn == LU_SCHED_EXIT_EXIT)
            fflush(NULL);
        return;
    }
    if (E->fatal_kind)
        return;
    if (kind == LU_SCHED_FATAL_BLOCKED) {
        /* asked before a timeout kills us: where the thread blocks (the
         * threads' states come from the point log, as for any timeout) */
        Dl_info di;
        if (pc && dladdr((void *)pc, &di) && di.dli_sname) {
            size_t n = strnlen(di.dli_sname, sizeof E->blocked_fn - 1); /* a signal handler: no stdio */
            memcpy(E->blocked_fn, di.dli_sname, n);
            E->blocked_fn[n] = 0;
        }
        lu__creating(E);
    } else {
        E->fatal_kind = kind;
        E->fatal_code = code;
        lu__threads_at_death(E);
    }
    E->fatal_tid = tid;
    E->fatal_at.pc = pc;
    if (kind == LU_SCHED_FATAL_SIGNAL || kind == LU_SCHED_FATAL_BLOCKED) {
        /* libgcc's unwinder was loaded by the server (see lu__server):
         * backtrace() allocates nothing now */
        void *bt[LU_RUN_BT];
        int n = backtrace(bt, LU_RUN_BT);
        E->nbt = (uint32_t)(n > 0 ? n : 0);
        for (int i = 0; i < n; i++) {
            E->bt[i].pc = (uintptr_t)bt[i];
            E->bt[i].call = 1;
        }
    }
    /* last: the server waiting for the answer to LU_SCHED_WHERE_SIGVAL reads
     * the record once the kind is there */
    if (kind == LU_SCHED_FATAL_BLOCKED)
        __atomic_store_n(&E->fatal_kind, kind, __ATOMIC_RELEASE);
}

#if LU__HAVE_RACES
static void lu__on_race(void *arg, const struct lu_ipose_race *r)
{
    (void)arg;
    struct lu_run_exec *E = X->exec;
    E->races++;
    if (E->race)
        return;
    E->race = 1;
    E->race_addr = r->addr;
    E->race_size = r->size;
    for (int i = 0; i < 2; i++) {
        E->race_tid[i] = r->tid[i];
        E->race_write[i] = r->write[i];
        E->race_atomic[i] = r->atomic[i];
        E->race_at[i].pc = r->pc[i];
        E->race_at[i].call = 1;
    }
}
#endif

/* main ended by pthread_exit, and the last thread now: glibc calls exit(0)
 * there, which runs the exit handlers (lu_sched_set_process_end) */
static void lu__process_end(void)
{
    lu__ipose_exit_handlers(0, false);
}

static void *lu__main_body(void *arg)
{
    (void)arg;
    int rc = lu__main(lu__argc, lu__argv, lu__envp);
    /* returning from main is exit(): the other threads may run on first
     * (the scheduling point, as in exit()), then the process ends with them
     * wherever they are. Its place is main's entry, the one place of main
     * known here (as a return address: the symbolizer looks at pc - 1). */
    lu_sched_pc = (uintptr_t)lu__main + 1;
    lu_sched_exit_point(LU_RT_L_MAIN_RETURN);
    lu__ipose_exit_handlers(rc, false);
    lu_sched_pc = (uintptr_t)lu__main + 1;
    X->exec->main_returned = 1;
    lu__sched_fatal_exit(rc, LU_SCHED_EXIT_EXIT);
}

/* An allocation of the program failed, although natively it would have
 * had the memory lineup's processes use (interpose/lu_ipose_malloc.c): what
 * the program does next is not its own behaviour, so the execution ends
 * here and the server reports lineup's resource error. */
static void lu__on_alloc_failed(const char *fn, size_t size, uintptr_t pc, int64_t live)
{
    (void)live;
    struct lu_run_exec *E = X->exec;
    E->oom_size = size ? size : 1;
    lu__copy(E->oom_fn, sizeof E->oom_fn, fn);
    E->oom_tid = lu_sched_self();
    E->oom_at.pc = pc;
    E->oom_at.call = 1;
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = 0;
    const char *vm = strstr(buf, "VmSize:");
    E->oom_vm_mb = vm ? strtoull(vm + 7, NULL, 10) >> 10 : 0;
    struct rlimit rl;
    E->oom_as_mb = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur >> 20 : 0;
    /* not _exit, which the report would show as the program's */
    lu__sched_exit_group(0);
}

static void lu__child(struct lu_sched *s) __attribute__((noreturn));
static void lu__child(struct lu_sched *s)
{
    lu__in_child = true;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* what this execution detaches stays its own while it runs: the
     * server's sweep of orphans then takes only ended executions' (with
     * --jobs, another lane's running daemon was killed) */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (getppid() != lu__server_pid)
        _exit(127);
    for (size_t i = 0; lu__stop_handled && i < sizeof lu__stop_sigs / sizeof lu__stop_sigs[0]; i++)
        sigaction(lu__stop_sigs[i], &lu__prog_sa[i], NULL);
    sigaction(SIGCHLD, &lu__prog_chld, NULL);
    close(lu__cmd_fd);
    close(lu__rep_fd);
    dup2(X->out_fd, STDOUT_FILENO);
    dup2(X->out_fd, STDERR_FILENO);
    for (unsigned i = 0; i < lu__nlanes; i++) {
        close(lu__lanes[i].out_fd);
        if (lu__lanes[i].pfd >= 0)
            close(lu__lanes[i].pfd);
    }
    /* crashing is a finding here, not a reason for a core file */
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    struct lu_run_exec *E = X->exec;
#if LU__HAVE_RACES
    if (R->cfg.races) {
        lu_ipose_race_set_handler(lu__on_race, NULL);
        lu_ipose_race_reset();
    }
#endif
    /* a crash in lineup's own code on this thread is still this execution's */
    lu_sched_set_fatal_fallback(lu__on_fatal, NULL);
    lu__ipose_set_alloc_failed(lu__on_alloc_failed);
    lu_sched_set_process_end(lu__process_end);
    E->started = 1;
    struct lu_sched_stats before, after;
    lu_sched_stats(s, &before);
    struct lu_sched_result res;
    int rc = lu_sched_run(s, lu__main_body, NULL, &res);
    if (rc != 0) {
        E->run_err = rc;
        _exit(0);
    }
    /* both end DISCARDED, as an assumption does */
    lu_sched_stats(s, &after);
    E->redundant = res.redundant;
    E->por_cut = after.por_pruned != before.por_pruned;
    E->outcome = (int)res.outcome;
    E->misfit = (int)res.misfit;
    E->culprit = res.culprit;
    lu__copy(E->message, sizeof E->message, res.message);
    E->nthreads = res.nthreads;
    for (int i = 0; i < res.nthreads && i < LU_SCHED_MAX_THREADS; i++) {
        const struct lu_sched_thread_info *ti = &res.threads[i];
        struct lu_run_thread *th = &E->th[i];
        th->state = ti->state == LU_SCHED_TS_FINISHED   ? LU_RUN_TS_FINISHED
                    : ti->state == LU_SCHED_TS_BLOCKED  ? LU_RUN_TS_BLOCKED
                    : ti->state == LU_SCHED_TS_SPINNING ? LU_RUN_TS_SPINNING
                                                        : LU_RUN_TS_READY;
        th->kind = (int)ti->k;
        th->label = ti->label;
        th->at.pc = ti->pc;
        th->at.call = 1;
        if (th->state != LU_RUN_TS_FINISHED)
            lu__frames_of(i, th);
    }
    E->done = 1;
    fflush(NULL);
    _exit(0);
}

/* ---- the server ---- */

static void lu__send(char c)
{
    while (write(lu__rep_fd, &c, 1) < 0 && errno == EINTR) {
    }
}

/* The driver's answer to a report; a driver that went away ends us. */
static char lu__answer(void)
{
    char c;
    for (;;) {
        ssize_t n = read(lu__cmd_fd, &c, 1);
        if (n == 1)
            return c;
        if (n < 0 && errno == EINTR)
            continue;
        _exit(3);
    }
}

static struct {
    uint64_t started; /* executions started, all rounds (less those cut off by a stop) */
    uint64_t counted; /* executions ended and counted: the next one's index */
    double t0;
    bool stop; /* a finding ended the run, or the driver asked */
    int error; /* tool error that ended the run */
} S;

/* Whether the search is to end: a finding, the driver, or a signal (which
 * the summary records). */
static bool lu__stopped(void)
{
    if (lu__stop_sig && !R->sum.interrupted) {
        R->sum.interrupted = lu__stop_sig;
        S.stop = true;
    }
    return S.stop;
}

static bool lu__budget_left(void)
{
    const struct lu_run_cfg *c = &R->cfg;
    if (c->budget_execs && S.started >= c->budget_execs)
        return false;
    if (c->budget_ms && (lu__now() - S.t0) * 1000.0 >= (double)c->budget_ms)
        return false;
    return true;
}

static int lu__module(const char *path)
{
    for (uint32_t i = 0; i < R->nmodules; i++)
        if (strcmp(R->modules[i], path) == 0)
            return (int)i;
    if (R->nmodules == LU_RUN_MAX_MODULES)
        return -1;
    lu__copy(R->modules[R->nmodules], sizeof R->modules[0], path);
    return (int)R->nmodules++;
}

/* Module and offset of a pc in the server, which has the child's mappings
 * (no exec in between; a child that dlopen()ed something is not covered). */
static void lu__resolve(struct lu_run_loc *l)
{
    l->mod = -1;
    l->off = l->pc;
    if (!l->pc)
        return;
    Dl_info di;
    struct link_map *lm = NULL;
    if (!dladdr1((void *)(l->pc - l->call), &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return;
    const char *name = lm->l_name && lm->l_name[0] ? lm->l_name : R->program;
    l->off = l->pc - lm->l_addr;
    l->mod = lu__module(name);
}

static void lu__resolve_exec(struct lu_run_exec *E)
{
    lu__resolve(&E->exit_at);
    lu__resolve(&E->fatal_at);
    for (uint32_t i = 0; i < E->nbt && i < LU_RUN_BT; i++)
        lu__resolve(&E->bt[i]);
    lu__resolve(&E->assert_at);
    lu__resolve(&E->reach_at);
    lu__resolve(&E->race_at[0]);
    lu__resolve(&E->race_at[1]);
    lu__resolve(&E->oom_at);
    for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++) {
        struct lu_run_thread *th = &E->th[i];
        lu__copy(th->what, sizeof th->what, lu_sched_label_name(th->label));
        lu__resolve(&th->at);
        for (uint32_t k = 0; k < th->nframes && k < LU_RUN_FRAMES; k++)
            lu__resolve(&th->frames[k]);
    }
    for (uint32_t i = 0; i < E->ninputs && i < LU_RUN_MAX_INPUTS; i++)
        lu__resolve(&E->inputs[i].at);
}

/* The point log holds raw pcs: the driver gets the ones it prints through
 * the module table, by replacing each pc with (mod << 48 | off + 1); 0
 * stays unknown. */
static void lu__resolve_plog(struct lu_run_exec *E)
{
    struct lu_run_point *pl = lu_run_shm_plog(R);
    for (uint32_t i = 0; i < E->nplog && i < R->trace_cap; i++) {
        struct lu_run_loc l = {.pc = pl[i].pc, .call = 1};
        lu__resolve(&l);
        pl[i].pc = l.mod >= 0 && l.off < (1ULL << 48) ? ((uint64_t)l.mod << 48 | (l.off + 1)) : 0;
    }
}

static void lu__read_output(struct lu_run_exec *E)
{
    struct stat st;
    E->out_total = 0;
    E->out_len = 0;
    if (fstat(X->out_fd, &st) != 0 || st.st_size <= 0)
        return;
    uint64_t total = (uint64_t)st.st_size;
    uint64_t from = total > LU_RUN_OUT_CAP ? total - LU_RUN_OUT_CAP : 0;
    ssize_t n = pread(X->out_fd, E->out, (size_t)(total - from), (off_t)from);
    E->out_total = total;
    E->out_len = n > 0 ? (uint32_t)n : 0;
}

/* An execution's output goes to a memory file of which only the last
 * LU_RUN_OUT_CAP bytes are ever shown: while it runs, everything before its
 * last LU__OUT_KEEP bytes is given back (a hole punched in the file, which
 * keeps its size and so the count of what was written), so that a program
 * that prints without end does not fill the machine's memory. */
#define LU__OUT_TRIM (8u << 20)
#define LU__OUT_KEEP (1u << 20)

static void lu__out_trim(int fd, off_t *trimmed)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < *trimmed + (off_t)LU__OUT_TRIM)
        return;
    off_t end = (st.st_size - (off_t)LU__OUT_KEEP) & ~(off_t)4095;
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, *trimmed, end - *trimmed) == 0)
        *trimmed = end;
}

static bool lu__same_module(uintptr_t a, uintptr_t b)
{
    Dl_info di;
    struct link_map *la = NULL, *lb = NULL;
    return dladdr1((void *)a, &di, (void **)&la, RTLD_DL_LINKMAP) &&
           dladdr1((void *)b, &di, (void **)&lb, RTLD_DL_LINKMAP) && la && la == lb;
}

/* Whether abort() was called by lineup itself (an internal assertion) rather
 * than by the program: the backtrace from the signal handler goes through
 * lineup's handler, libc's signal return, raise and abort, then reaches the
 * caller of abort. */
static bool lu__lineup_aborted(const struct lu_run_exec *E)
{
    uintptr_t self = (uintptr_t)&lu__lineup_aborted, libc = (uintptr_t)&abort;
    uint32_t i = 0, n = E->nbt < LU_RUN_BT ? E->nbt : LU_RUN_BT;
    while (i < n && lu__same_module(E->bt[i].pc - 1, self))
        i++;
    while (i < n && lu__same_module(E->bt[i].pc - 1, libc))
        i++;
    return i < n && lu__same_module(E->bt[i].pc - 1, self);
}

/* The process ended without the runtime's last word: threads the point
 * log saw were alive at their last scheduling point. */
static void lu__threads_last_seen(struct lu_run_exec *E)
{
    E->last_seen = 1;
    for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++)
        if (E->th[i].state == LU_RUN_TS_NONE && E->th[i].at.pc)
            E->th[i].state = LU_RUN_TS_LIVE;
}

/* After lu__threads_last_seen: the thread that ran last, the one chosen
 * last or one just created that never reached a scheduling point (it ran
 * at once, before its creator went on). */
static int lu__ran_last(struct lu_run_exec *E)
{
    const struct lu_sched_trace *tr = X->trace;
    int last = tr->len ? tr->steps[tr->len - 1].chosen : 0;
    if (E->starting >= 0 && E->starting < LU_SCHED_MAX_THREADS) {
        last = E->starting;
        E->th[last].state = LU_RUN_TS_LIVE;
        if (last >= E->nthreads)
            E->nthreads = last + 1;
    }
    return last;
}

/* What the execution showed, from what the child left and how it ended. */
static void lu__classify(struct lu_run_exec *E, int wstatus, bool timed_out)
{
    E->wstatus = wstatus;
    E->timed_out = timed_out;
    E->steps = X->trace->len;
    int k = LU_RUN_K_PASS;
    if (E->oom_size) {
        /* whatever followed was not the program's own doing */
        k = LU_RUN_K_MEMORY;
        lu__threads_last_seen(E);
    } else if (timed_out) {
        k = LU_RUN_K_TIMEOUT;
        /* killed from outside: what the point log kept is all there is */
        lu__threads_last_seen(E);
        E->culprit = lu__ran_last(E);
    } else if (E->done && E->redundant) {
        /* covered by other executions (partial-order reduction: an explored
         * one is equivalent to every completion of it, a race seen on the
         * way included, same happens-before): never a finding of its own */
    } else if (E->race && R->cfg.races)
        k = LU_RUN_K_RACE;
    else if (E->assert_tid >= 0 && strcmp(E->assert_func, "reach_error") == 0) {
        /* SV-COMP's reach_error() is assert(0): the failure is reaching it,
         * at its caller */
        k = LU_RUN_K_REACH_ERROR;
        E->reach_tid = E->assert_tid;
        const struct lu_run_thread *th = &E->th[E->assert_tid % LU_SCHED_MAX_THREADS];
        /* unless reach_error was inlined into its caller: then the caller's
         * own caller is in another module (lineup's thread start) */
        E->reach_at = th->nframes && lu__same_module(th->frames[0].pc - 1, E->assert_at.pc - 1)
                          ? th->frames[0]
                          : E->assert_at;
    } else if (E->assert_tid >= 0)
        k = LU_RUN_K_ASSERT;
    else if (E->reach_tid >= 0)
        k = LU_RUN_K_REACH_ERROR;
    else if (E->fatal_kind == LU_SCHED_FATAL_SIGNAL && E->fatal_tid < 0) {
        /* not on a controlled thread: lineup's own code crashed */
        k = LU_RUN_K_INTERNAL;
        snprintf(E->message, sizeof E->message, "signal %d in lineup's runtime", E->fatal_code);
    } else if (E->fatal_kind == LU_SCHED_FATAL_SIGNAL && E->fatal_code == SIGABRT && lu__lineup_aborted(E)) {
        k = LU_RUN_K_INTERNAL;
        snprintf(E->message, sizeof E->message, "lineup's runtime aborted (its message is in the output)");
    } else if (E->fatal_kind == LU_SCHED_FATAL_SIGNAL)
        k = E->fatal_code == SIGABRT ? LU_RUN_K_ABORT : LU_RUN_K_CRASH;
    else if (E->fatal_kind == LU_SCHED_FATAL_DIVERGE)
        k = LU_RUN_K_DIVERGE;
    else if (E->exited)
        k = LU_RUN_K_PASS; /* the status is judged below */
    else if (E->run_err)
        k = LU_RUN_K_INTERNAL;
    else if (E->done) {
        switch (E->outcome) {
        case LU_SCHED_OUT_COMPLETE:
            /* every thread finished, main through pthread_exit: status 0 */
            E->exited = 1;
            E->status = 0;
            E->exit_tid = -1;
            break;
        case LU_SCHED_OUT_DEADLOCK:
            k = LU_RUN_K_DEADLOCK;
            break;
        case LU_SCHED_OUT_LIVELOCK:
            k = LU_RUN_K_LIVELOCK;
            break;
        case LU_SCHED_OUT_TOO_LONG:
            k = LU_RUN_K_TOO_LONG;
            break;
        case LU_SCHED_OUT_NONDET:
            k = LU_RUN_K_NONDET;
            break;
        case LU_SCHED_OUT_MISFIT:
            /* a replay that stopped: no finding about the program, the
             * driver says why (outcome, message, steps) */
            break;
        case LU_SCHED_OUT_UNSUPPORTED:
            k = LU_RUN_K_UNSUPPORTED;
            break;
        case LU_SCHED_OUT_DISCARDED:
            break;
        default:
            k = LU_RUN_K_INTERNAL;
            break;
        }
    } else if (WIFSIGNALED(wstatus)) {
        /* killed without lineup's handler seeing it (SIGKILL, by the
         * program, another process or the kernel's OOM killer; or the
         * program replaced the handler): the thread that ran last, where
         * the point log last saw each thread */
        k = WTERMSIG(wstatus) == SIGABRT ? LU_RUN_K_ABORT : LU_RUN_K_CRASH;
        E->fatal_code = WTERMSIG(wstatus);
        E->killed = 1;
        if (E->fatal_code == SIGKILL) {
            /* the program's own kill, raise, sigqueue or syscall(SYS_kill)
             * would have said so (lu_sched_fatal_signal_ahead): this came
             * from outside, or by a call lineup does not see */
            k = LU_RUN_K_INTERNAL;
            snprintf(E->message, sizeof E->message,
                     "the execution's process was killed by SIGKILL from outside the program (the "
                     "kernel's OOM killer, or another process): this says nothing about the program (a "
                     "SIGKILL the program sends itself with kill, raise or sigqueue is reported as its "
                     "crash; with pidfd_send_signal, lineup cannot tell)");
        }
        lu__threads_last_seen(E);
        E->fatal_tid = E->started ? lu__ran_last(E) : -1;
    } else if (WIFEXITED(wstatus) && E->started) {
        /* left through a path nobody intercepted (a raw exit_group, an
         * exec of another program) */
        E->exited = 1;
        E->status = WEXITSTATUS(wstatus);
        E->exit_tid = -1;
        lu__threads_last_seen(E);
    } else {
        k = LU_RUN_K_INTERNAL;
        snprintf(E->message, sizeof E->message,
                 "the execution's process ended before it started (status %#x)", (unsigned)wstatus);
    }
    if (k == LU_RUN_K_PASS && E->exited && R->cfg.expect_exit_set && E->status != R->cfg.expect_exit)
        k = LU_RUN_K_EXIT;
    E->kind = k;

    uint64_t h = lu__h(0, (uint64_t)k);
    switch (k) {
    case LU_RUN_K_ASSERT:
        h = lu__hstr(lu__h(h, E->assert_at.pc), E->assert_expr);
        break;
    case LU_RUN_K_REACH_ERROR:
        h = lu__h(h, E->reach_at.pc);
        break;
    case LU_RUN_K_CRASH:
        h = lu__h(lu__h(h, (uint64_t)E->fatal_code), E->fatal_at.pc);
        break;
    case LU_RUN_K_ABORT:
        /* abort's own pc is always the same: its callers tell aborts apart */
        for (uint32_t i = 0; i < E->nbt && i < LU_RUN_BT; i++)
            h = lu__h(h, E->bt[i].pc);
        break;
    case LU_RUN_K_EXIT:
        h = lu__h(h, (uint64_t)E->status);
        break;
    case LU_RUN_K_DIVERGE:
        /* the watchdog stops a loop at any of its instructions: the loop is
         * told by where its thread last reached a scheduling point */
        if (E->fatal_tid >= 0 && E->fatal_tid < LU_SCHED_MAX_THREADS && E->th[E->fatal_tid].at.pc)
            h = lu__h(lu__h(h, (uint64_t)E->fatal_tid), E->th[E->fatal_tid].at.pc);
        else
            h = lu__h(h, E->fatal_at.pc);
        break;
    case LU_RUN_K_DEADLOCK:
    case LU_RUN_K_LIVELOCK:
        for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++)
            if (E->th[i].state != LU_RUN_TS_FINISHED)
                h = lu__h(lu__h(h, (uint64_t)E->th[i].state), E->th[i].at.pc);
        break;
    case LU_RUN_K_RACE: {
        uintptr_t a = E->race_at[0].pc, b = E->race_at[1].pc;
        h = lu__h(lu__h(h, a < b ? a : b), a < b ? b : a);
        break;
    }
    case LU_RUN_K_UNSUPPORTED:
        h = lu__hstr(h, E->message);
        break;
    default:
        break;
    }
    E->sig = h;
}

/* 1 + the system call the execution's thread is blocked in, 0 (in none,
 * or unknown), or -1 when the process is stopped (the program's own
 * raise(SIGSTOP): lineup's stops do not count against the time limit):
 * all controlled threads of an execution run on the child's first kernel
 * thread, whose tid is the child's pid. */
static int lu__blocked_syscall(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = 0;
        /* "pid (comm) S ...": comm may hold spaces and parentheses */
        char *rp = strrchr(buf, ')');
        if (rp && (rp[1] == ' ') && (rp[2] == 'T' || rp[2] == 't'))
            return -1;
    }
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *end;
    long nr = strtol(buf, &end, 10);
    return end != buf && nr >= 0 && nr < INT_MAX ? (int)nr + 1 : 0;
}

/* An execution that ran out of time blocks in a call lineup does not
 * control: ask the child where (LU_SCHED_WHERE_SIGVAL) before it is killed,
 * and give it a moment to answer. */
static void lu__ask_where(struct lu__lane *L)
{
    if (lu_sched_ask_where(L->pid) != 0)
        return;
    for (int i = 0; i < 500 && !__atomic_load_n(&L->exec->fatal_kind, __ATOMIC_ACQUIRE); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Whether the child died of a signal that also stops the search: a
 * terminal's Ctrl-C reaches the execution along with this process, and
 * may kill it before this process's handler has run. Waits a little for
 * that handler; a program that raised the signal itself is judged as
 * usual. */
static bool lu__killed_by_stop(int st)
{
    if (!lu__stop_handled || !WIFSIGNALED(st))
        return false;
    bool stop_sig = false;
    for (size_t i = 0; i < sizeof lu__stop_sigs / sizeof lu__stop_sigs[0]; i++)
        stop_sig |= WTERMSIG(st) == lu__stop_sigs[i];
    for (int i = 0; stop_sig && !lu__stop_sig && i < 20; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return stop_sig && lu__stop_sig;
}

static void lu__reap(struct lu__lane *L, int st, bool timed_out, bool stopped);

/* Ends lane L's execution at once: a timeout (asked where it blocks
 * first), or a stop (a signal, or a finding of another lane's), after
 * which it shows nothing. */
static void lu__kill(struct lu__lane *L, bool timeout)
{
    if (timeout) {
        L->exec->blocked_syscall = lu__blocked_syscall(L->pid);
        lu__ask_where(L);
    }
    kill(L->pid, SIGKILL);
    int st = 0;
    while (waitpid(L->pid, &st, 0) < 0 && errno == EINTR) {
    }
    lu__reap(L, st, timeout, !timeout);
}

/* Cuts off every execution under way: the search stops. */
static void lu__kill_all(void)
{
    for (unsigned i = 0; i < lu__nlanes; i++)
        if (lu__lanes[i].pid)
            lu__kill(&lu__lanes[i], false);
}

/* Waits until at least one execution under way has ended, and reaps it:
 * killed after the per-execution time limit, or all of them at once when
 * a signal stops the search. Time is counted in slices, so that time
 * lineup spent stopped (Ctrl-Z, SIGSTOP to its process group: the
 * executions were stopped too) does not count against the limit, and so
 * that a stop request that came just before a poll is seen. Kernels
 * without pidfd are polled with waitpid every millisecond. */
static void lu__wait_any(void)
{
    uint32_t limit = R->cfg.timeout_ms;
    for (;;) {
        if (lu__stop_sig) {
            lu__kill_all();
            return;
        }
        struct pollfd p[LU_RUN_MAX_JOBS];
        struct lu__lane *of[LU_RUN_MAX_JOBS];
        unsigned n = 0;
        bool blind = false;
        int slice = 100;
        for (unsigned i = 0; i < lu__nlanes; i++) {
            struct lu__lane *L = &lu__lanes[i];
            if (!L->pid)
                continue;
            if (L->pfd < 0)
                blind = true;
            else {
                p[n] = (struct pollfd){L->pfd, POLLIN, 0};
                of[n++] = L;
            }
            if (limit) {
                double left = limit - L->waited * 1000.0;
                if (left < slice)
                    slice = left > 0 ? (int)left + 1 : 1;
            }
        }
        if (blind)
            slice = 1;
        double a = lu__now();
        int r = poll(p, n, slice);
        if (r < 0 && errno != EINTR)
            r = 0;
        double d = lu__now() - a;
        if (d > slice / 1000.0 + 1.0)
            d = slice / 1000.0;
        bool reaped = false;
        for (unsigned i = 0; r > 0 && i < n; i++) {
            if (!p[i].revents)
                continue;
            int st = 0;
            pid_t w = waitpid(of[i]->pid, &st, WNOHANG);
            if (w == 0 || (w < 0 && errno == EINTR))
                continue;
            /* (w < 0: reaped by someone else, the status is lost) */
            lu__reap(of[i], st, false, lu__killed_by_stop(st));
            reaped = true;
        }
        for (unsigned i = 0; i < lu__nlanes; i++) {
            struct lu__lane *L = &lu__lanes[i];
            if (!L->pid)
                continue;
            int st = 0;
            if (L->pfd < 0 && waitpid(L->pid, &st, WNOHANG) == L->pid) {
                lu__reap(L, st, false, lu__killed_by_stop(st));
                reaped = true;
                continue;
            }
            L->waited += d;
            lu__out_trim(L->out_fd, &L->out_trimmed);
            /* not after a lane's timeout reached --max-timeouts (S.stop):
             * the caller cuts the rest off, uncounted, as after a failure */
            if (limit && L->waited * 1000.0 >= limit && !lu__stop_sig && !S.stop) {
                lu__kill(L, true);
                reaped = true;
            }
        }
        if (reaped)
            return;
    }
}

static struct lu_run_sig *lu__sig_find(uint64_t sig)
{
    for (uint32_t i = 0; i < R->sum.nsig; i++)
        if (R->sum.sigs[i].sig == sig)
            return &R->sum.sigs[i];
    return NULL;
}

static struct lu_run_status *lu__status_find(int status)
{
    for (uint32_t i = 0; i < R->sum.nstatus; i++)
        if (R->sum.statuses[i].status == status)
            return &R->sum.statuses[i];
    return NULL;
}

/* Hands lane X's execution to the driver and waits until it has read it.
 * The driver reads R: a lane of its own is copied there first (its areas
 * stay the lane's, which may start its next execution at once). */
static void lu__report(char msg)
{
    struct lu_run_exec *E = &R->exec;
    if (X->exec != E) {
        memcpy(E, X->exec, offsetof(struct lu_run_exec, out));
        struct lu_sched_trace *tr = lu_run_shm_trace(R);
        tr->len = X->trace->len;
        uint32_t len = tr->len < tr->cap ? tr->len : tr->cap;
        memcpy(tr->steps, X->trace->steps, len * sizeof tr->steps[0]);
        uint32_t np = E->nplog < R->trace_cap ? E->nplog : R->trace_cap;
        memcpy(lu_run_shm_plog(R), X->plog, np * sizeof X->plog[0]);
    }
    lu__resolve_exec(E);
    lu__resolve_plog(E);
    lu__read_output(E);
    lu__send(msg);
    if (lu__answer() == 's')
        S.stop = true;
}

/* Accounts for the execution just classified; reports it when it is new. */
static void lu__account(struct lu_run_exec *E)
{
    if (E->ninputs)
        R->sum.nondet = 1;
    if (R->cfg.strategy == LU_RUN_REPLAY) {
        if (E->kind == LU_RUN_K_TIMEOUT)
            R->sum.timeouts++;
        else if (E->kind != LU_RUN_K_PASS)
            R->sum.failing++;
        return;
    }
    if (E->done && E->redundant) {
        if (E->por_cut)
            R->sum.redundant++;
        else
            R->sum.dropped++;
        return;
    }
    if (E->done && E->outcome == LU_SCHED_OUT_DISCARDED && E->kind == LU_RUN_K_PASS) {
        R->sum.discarded++;
        return;
    }
    bool note = false;
    if (E->exited) {
        struct lu_run_status *st = lu__status_find(E->status);
        if (!st && R->sum.nstatus < LU_RUN_MAX_STATUS) {
            st = &R->sum.statuses[R->sum.nstatus++];
            st->status = E->status;
            st->first = E->index;
            note = E->status != 0 && !R->cfg.expect_exit_set && E->kind == LU_RUN_K_PASS;
        }
        if (st)
            st->count++;
    }
    if (E->kind == LU_RUN_K_PASS) {
        if (note)
            lu__report('N');
        return;
    }
    /* a timeout says that lineup could not run the program to the end,
     * not that it fails */
    if (E->kind == LU_RUN_K_TIMEOUT) {
        R->sum.timeouts++;
        /* each costs --timeout: a program that blocks outside lineup's
         * control blocks in most schedules */
        if (R->cfg.all && R->cfg.max_timeouts && R->sum.timeouts >= R->cfg.max_timeouts) {
            S.stop = true;
            R->sum.timeout_stop = 1;
        }
    } else {
        R->sum.failing++;
        atomic_fetch_add(&R->failing, 1);
        if (lu_drv_run_kind_exit(E->kind) >= 2) /* an error, not a finding */
            R->sum.errors++;
    }
    struct lu_run_sig *sg = lu__sig_find(E->sig);
    bool fresh = !sg;
    if (!sg && R->sum.nsig < LU_RUN_MAX_SIGS) {
        sg = &R->sum.sigs[R->sum.nsig++];
        sg->sig = E->sig;
        sg->kind = E->kind;
        sg->first = E->index;
    }
    if (sg)
        sg->count++;
    bool tool = E->kind == LU_RUN_K_UNSUPPORTED || E->kind == LU_RUN_K_MEMORY ||
                E->kind == LU_RUN_K_INTERNAL || E->kind == LU_RUN_K_NONDET;
    if (fresh)
        lu__report('F');
    if (!R->cfg.all || tool)
        S.stop = true;
    if (tool && !S.error)
        S.error = E->kind;
}

/* A system call of lineup's own failed (error_text, already written,
 * names the limit): the run stops without a verdict, and the execution
 * that could not run is not counted. */
static void lu__resource_stop(void)
{
    S.stop = true;
    S.error = LU_RUN_K_RESOURCE;
    S.started--;
}

/* Starts lane L's prepared execution in a child; false (a resource stop)
 * when the process cannot be made. */
static bool lu__launch(struct lu__lane *L)
{
    X = L;
    struct lu_run_exec *E = L->exec;
    memset(E, 0, offsetof(struct lu_run_exec, out));
    E->strategy = L->strategy;
    E->bound = L->bound;
    E->bound_kind = L->bound_kind;
    E->pct_depth = L->depth;
    E->seed = L->seed;
    E->assert_tid = E->reach_tid = -1;
    E->exit_tid = E->fatal_tid = E->culprit = E->starting = E->starter = E->creating = -1;
    memset(lu__shadows, 0, sizeof lu__shadows);
    if (ftruncate(L->out_fd, 0) != 0) {
        /* the output of this execution then follows the last one's */
    }
    L->out_trimmed = 0;
    fflush(NULL);
    S.started++;
    pid_t pid = fork();
    if (pid < 0) {
        lu_sched_syserr(R->sum.error_text, sizeof R->sum.error_text, LU_SCHED_NEED_PROCESS, errno,
                        "cannot start the process of an execution", 0);
        lu__resource_stop();
        return false;
    }
    if (pid == 0)
        lu__child(L->s);
    L->pid = pid;
    L->pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    L->waited = 0;
    return true;
}

/* What an execution started and left running (a posix_spawn or system()
 * child it did not wait for) became the server's child when the execution
 * ended (the server and each execution are child subreapers, so that an
 * orphan is a running execution's until it ends): killed and
 * reaped here, or each execution would leave one more running after
 * lineup has gone (an audit's program left 20 for 20 executions). Rounds
 * until none is left: a round reads the first 4 KB of the list, and what
 * those killed leave becomes the server's in turn. */
static void lu__sweep_orphans(void)
{
    pid_t lanes[LU_RUN_MAX_JOBS];
    unsigned n = 0;
    for (unsigned i = 0; i < lu__nlanes; i++)
        if (lu__lanes[i].pid > 0)
            lanes[n++] = lu__lanes[i].pid;
    long tid = (long)syscall(SYS_gettid);
    for (int round = 0; round < 1000 && lu_sched_reap_children(tid, lanes, n); round++) {
    }
}

/* Lane L's execution ended (waitpid status st): classified and counted,
 * unless it was cut off by a stop (then it shows nothing) or lineup could
 * not run it. */
static void lu__reap(struct lu__lane *L, int st, bool timed_out, bool stopped)
{
    X = L;
    L->pid = 0;
    if (L->pfd >= 0)
        close(L->pfd);
    L->pfd = -1;
    lu__sweep_orphans();
    lu_sched_fork_done(L->s);
    struct lu_run_exec *E = L->exec;
    if (E->done && E->outcome == LU_SCHED_OUT_ERROR) {
        /* what the program did after the failure would be no behaviour
         * of its own: no verdict from this execution */
        lu__copy(R->sum.error_text, sizeof R->sum.error_text, E->message);
        lu__resource_stop();
        return;
    }
    if (stopped) {
        S.started--;
        lu__stopped();
        return;
    }
    E->index = S.counted++;
    atomic_store(&R->executions, S.counted);
    L->ran++;
    lu__classify(E, st, timed_out);
    lu__account(E);
    if (L->tally)
        (*L->tally)++;
}

static struct lu_sched *lu__sched_new(struct lu__lane *L, enum lu_sched_strategy st, int bound,
                                      int bound_kind, int depth, uint64_t seed, bool por,
                                      struct lu_sched_cache *cache)
{
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = st;
    /* the reduction state is a shared mapping (lu_sched_create): what each
     * child learns about the schedules it ran reaches this process's
     * backtracking */
    cfg.por = por;
    cfg.cache = cache;
    cfg.no_clocks = !R->cfg.races; /* only the race detector reads them */
    cfg.preemption_bound = bound;
    cfg.bound_kind = bound_kind;
    cfg.pct_depth = depth;
    cfg.seed = seed;
    cfg.spin_bound = R->cfg.spin_bound;
    cfg.watchdog_ms = R->cfg.watchdog_ms;
    cfg.tls = R->cfg.tls;
    cfg.trace = L->trace;
    cfg.trace->cap = R->trace_cap;
    cfg.on_fatal = lu__on_fatal;
    cfg.on_point = lu__on_point;
    if (st == LU_SCHED_REPLAY) {
        cfg.replay = lu_run_shm_replay(R);
        cfg.replay_len = R->cfg.replay_len;
    } else if (st == LU_SCHED_DFS && L->g_len) {
        /* the subtree below the lane's item */
        cfg.replay = L->g;
        cfg.replay_len = cfg.frozen_len = L->g_len;
    }
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s && err == LU_SCHED_ENOMEM) {
        S.stop = true;
        S.error = LU_RUN_K_RESOURCE;
        lu_sched_syserr(R->sum.error_text, sizeof R->sum.error_text, LU_SCHED_NEED_MEMORY, ENOMEM,
                        "cannot create the scheduler", 0);
    } else if (!s) {
        S.stop = true;
        S.error = LU_RUN_K_INTERNAL;
        snprintf(R->sum.error_text, sizeof R->sum.error_text, "cannot create the scheduler: %s",
                 lu_sched_strerror(err));
    }
    return s;
}

/* One lane per --jobs. A single lane writes into R itself, as the driver
 * reads it, and has no items (it never splits its search); more have a
 * mapping each for their areas and their item, touched only as far as
 * executions reach, like R's. */
static bool lu__lanes_init(void)
{
    unsigned j = R->cfg.strategy == LU_RUN_REPLAY || !R->cfg.jobs ? 1 : R->cfg.jobs;
    if (j > LU_RUN_MAX_JOBS)
        j = LU_RUN_MAX_JOBS;
    uint32_t cap = R->trace_cap;
    size_t o_trace = lu_run_align(sizeof(struct lu_run_exec));
    size_t o_plog = o_trace + lu_run_align(lu_sched_trace_size(cap));
    size_t o_g = o_plog + lu_run_align((size_t)cap * sizeof(struct lu_run_point));
    size_t size = o_g + (size_t)cap * sizeof(struct lu_sched_step);
    for (unsigned i = 0; i < j; i++) {
        struct lu__lane *L = &lu__lanes[i];
        L->pfd = L->out_fd = -1;
        if (j == 1) {
            L->exec = &R->exec;
            L->trace = lu_run_shm_trace(R);
            L->plog = lu_run_shm_plog(R);
            L->out_fd = lu__out_fd;
            break;
        }
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            lu_sched_syserr(R->sum.error_text, sizeof R->sum.error_text, LU_SCHED_NEED_MEMORY, errno,
                            "cannot map the memory of --jobs' executions", size);
            return false;
        }
        L->exec = m;
        L->trace = (struct lu_sched_trace *)((char *)m + o_trace);
        L->plog = (struct lu_run_point *)((char *)m + o_plog);
        L->g = (struct lu_sched_step *)((char *)m + o_g);
        L->trace->cap = cap;
        L->out_fd = (int)syscall(SYS_memfd_create, "lineup-output", 1u /* MFD_CLOEXEC */);
        if (L->out_fd < 0 || fcntl(L->out_fd, F_SETFL, O_APPEND) < 0) {
            snprintf(R->sum.error_text, sizeof R->sum.error_text,
                     "cannot create the output file of --jobs' executions: %s (ulimit -n)", strerror(errno));
            return false;
        }
        lu__nlanes = i + 1;
    }
    return true;
}

/* Where an execution comes from: prepares lane L's next one in L->s
 * (L->ready), or leaves it idle. */
struct lu__src {
    bool (*next)(struct lu__src *src, struct lu__lane *L);
    uint64_t launched; /* executions this source started */
};

enum { LU__ROUND_EXHAUSTED, LU__ROUND_LIMIT, LU__ROUND_STOPPED };

/* Runs src's executions on every lane until it has none left, the search
 * stops, or the budget or this round's own share (max_execs, deadline;
 * 0 = none) runs out. Executions under way when the share runs out are
 * finished and counted; on a stop they are cut off. */
static int lu__lanes_run(struct lu__src *src, uint64_t max_execs, double deadline)
{
    bool limit = false;
    for (;;) {
        if (lu__stopped()) {
            lu__kill_all();
            return LU__ROUND_STOPPED;
        }
        unsigned running = 0;
        for (unsigned i = 0; i < lu__nlanes && !S.stop; i++) {
            struct lu__lane *L = &lu__lanes[i];
            if (L->pid) {
                running++;
                continue;
            }
            if (!L->ready)
                L->ready = src->next(src, L);
            if (!L->ready)
                continue;
            if (!lu__budget_left() || (max_execs && src->launched >= max_execs) ||
                (deadline > 0 && lu__now() >= deadline)) {
                limit = true;
                continue;
            }
            L->ready = false;
            if (!lu__launch(L))
                break;
            src->launched++;
            running++;
        }
        if (lu__stopped()) {
            lu__kill_all();
            return LU__ROUND_STOPPED;
        }
        if (!running)
            return limit ? LU__ROUND_LIMIT : LU__ROUND_EXHAUSTED;
        lu__wait_any();
    }
}

/* ---- exhaustive rounds: DFS items on the lanes ---- */

/* Executions a lane runs between two gifts of work: a gift costs the giver
 * a copy of a prefix, the taker a new scheduler (~0.2 ms, about one
 * execution) without the sleep sets above its item. Between 1 and 256 the
 * executions of an exhaustive search change by under 1%; a small value
 * puts the lanes to work early (a search of a few dozen executions, or
 * one whose executions time out). LINEUP_SPLIT_AFTER overrides it (tests
 * split as often as they can). */
static uint64_t lu__give_after = 8;

#define LU__QUEUE (LU_RUN_MAX_JOBS * 4) /* items given away and not yet taken, at most */

struct lu__dfs {
    struct lu__src src;
    int strategy, bound, bound_kind;
    bool por;
    struct lu_sched_cache *cache;
    uint64_t execs, cut; /* over the round's schedulers */
    /* items given away, first in first out */
    struct lu_sched_step **q;
    uint32_t *qlen;
    unsigned qhead, qn;
};

static void lu__dfs_drop_sched(struct lu__dfs *D, struct lu__lane *L)
{
    struct lu_sched_stats ss;
    lu_sched_stats(L->s, &ss);
    D->execs += ss.executions;
    D->cut += ss.pruned;
    lu_sched_destroy(L->s);
    L->s = NULL;
}

/* Queues a copy of a given item; false when the queue is full or there is
 * no memory (the giver then explores it itself). */
static bool lu__dfs_take(void *arg, const struct lu_sched_step *item, uint32_t n)
{
    struct lu__dfs *D = arg;
    struct lu_sched_step *copy = D->qn < LU__QUEUE ? malloc(n * sizeof *copy) : NULL;
    if (!copy)
        return false;
    memcpy(copy, item, n * sizeof *copy);
    unsigned k = (D->qhead + D->qn++) % LU__QUEUE;
    D->q[k] = copy;
    D->qlen[k] = n;
    return true;
}

/* Gives the largest subtrees left in lane L to idle lanes: the
 * alternatives of the shallowest step that has some, in its item's own
 * steps or else in its scheduler's DFS stack (the trace holds the next
 * execution's, whose backtracking skips the alternatives marked done).
 * The scheduler goes on with its sleep sets and its noted nodes: a node
 * it leaves counts as explored once the lanes given its alternatives
 * finish them, which they do unless the search stops, and then the round
 * claims no coverage. */
static void lu__dfs_give(struct lu__dfs *D, struct lu__lane *L)
{
    if (!lu_sched_stack_give(L->g, L->g_len, L->g_base, D->bound, D->bound_kind, lu__dfs_take, D))
        lu_sched_stack_give(L->trace->steps, L->trace->len, L->g_len, D->bound, D->bound_kind, lu__dfs_take,
                            D);
}

static bool lu__dfs_next(struct lu__src *src, struct lu__lane *L)
{
    struct lu__dfs *D = (struct lu__dfs *)src;
    L->strategy = D->strategy;
    L->bound = D->bound;
    L->bound_kind = D->bound_kind;
    L->depth = 0;
    L->seed = 0;
    L->tally = &R->sum.exhaustive;
    for (;;) {
        if (!L->s) {
            if (!L->has_item) {
                if (!D->qn)
                    return false;
                unsigned k = D->qhead;
                D->qhead = (D->qhead + 1) % (LU__QUEUE);
                D->qn--;
                memcpy(L->g, D->q[k], D->qlen[k] * sizeof *L->g);
                L->g_len = L->g_base = D->qlen[k];
                free(D->q[k]);
                L->has_item = true;
            }
            L->s = lu__sched_new(L, LU_SCHED_DFS, D->bound, D->bound_kind, 0, 0, D->por, D->cache);
            if (!L->s)
                return false;
            L->ran = 0;
        }
        if (lu_sched_fork_prepare(L->s, S.started) == LU_SCHED_EDONE) {
            lu__dfs_drop_sched(D, L);
            uint64_t pruned = 0;
            if (!lu_sched_stack_next(L->g, &L->g_len, L->g_base, D->bound, D->bound_kind, &pruned))
                L->has_item = false;
            D->cut += pruned;
            continue;
        }
        /* a lane without work and none queued: give it some */
        bool idle = false;
        for (unsigned i = 0; i < lu__nlanes; i++)
            idle |= !lu__lanes[i].has_item;
        if (idle && !D->qn && L->ran >= lu__give_after) {
            L->ran = 0;
            lu__dfs_give(D, L);
        }
        return true;
    }
}

/* What a DFS round did: whether nothing was cut by the bound, so that
 * every schedule was explored; its executions; the alternatives the bound
 * cut. */
struct lu__round {
    bool whole;
    uint64_t execs, cut;
};

/* One exhaustive DFS within a bound, until done, stopped, the budget or
 * this round's own share (max_execs, deadline; 0 = none) runs out. */
static int lu__dfs_round(int strategy, int bound, int bound_kind, uint64_t max_execs, double deadline,
                         struct lu__round *rd)
{
    memset(rd, 0, sizeof *rd);
    struct lu_sched_step *q[LU__QUEUE];
    uint32_t qlen[LU__QUEUE];
    struct lu__dfs D = {.src = {.next = lu__dfs_next},
                        .strategy = strategy,
                        .bound = bound,
                        .bound_kind = bound_kind,
                        .q = q,
                        .qlen = qlen};
    /* delay bounding has no reduction (docs/por.md) */
    D.por = R->cfg.reduction && bound_kind == LU_SCHED_BOUND_PREEMPTIONS;
    /* a round's own, shared by its lanes: the fork server's children fill
     * it (a shared mapping); none (no room) only costs executions */
    D.cache = D.por && R->cfg.cache_mb ? lu_sched_cache_create((size_t)R->cfg.cache_mb << 20) : NULL;
    /* the whole tree is lane 0's first item */
    lu__lanes[0].has_item = true;
    lu__lanes[0].g_len = lu__lanes[0].g_base = 0;
    int r = lu__lanes_run(&D.src, max_execs, deadline);
    for (unsigned i = 0; i < lu__nlanes; i++) {
        struct lu__lane *L = &lu__lanes[i];
        if (L->s)
            lu__dfs_drop_sched(&D, L);
        L->ready = L->has_item = false;
    }
    while (D.qn) {
        free(q[D.qhead]);
        D.qhead = (D.qhead + 1) % (LU__QUEUE);
        D.qn--;
    }
    /* Alternatives the reduction skipped are not in the pruned counts, and
     * need not be: the least schedule of any trace is never asleep
     * (docs/por.md, section 4, holds without the bound), so a round that
     * cut nothing by the bound has reached every trace. */
    rd->whole = r == LU__ROUND_EXHAUSTED && D.cut == 0;
    rd->execs = D.execs;
    rd->cut = D.cut;
    lu_sched_cache_destroy(D.cache);
    return r;
}

/* Iterative bounding from bound 0 up to max_bound (-1: none); *last: the
 * last round. */
static int lu__iterate(int strategy, int bound_kind, int max_bound, uint64_t max_execs, double deadline,
                       struct lu__round *last)
{
    R->sum.bound_kind = bound_kind;
    uint64_t start = S.started;
    for (int b = 0;; b++) {
        uint64_t left = 0;
        if (max_execs) {
            if (S.started - start >= max_execs) {
                R->sum.bound_at = b;
                return LU__ROUND_LIMIT;
            }
            left = max_execs - (S.started - start);
        }
        R->sum.bound_at = b;
        int r = lu__dfs_round(strategy, b, bound_kind, left, deadline, last);
        if (r != LU__ROUND_EXHAUSTED)
            return r;
        R->sum.bound_at = -1;
        R->sum.bound_done = b;
        R->sum.exhausted = last->whole ? 2 : 1;
        if (last->whole || (max_bound >= 0 && b >= max_bound))
            return LU__ROUND_EXHAUSTED;
    }
}

/* ---- randomized executions ---- */

/* One randomized scheduler of a rotation: the strategy the reports name,
 * the scheduler's strategy, and PCT's depth. */
struct lu__mix {
    int strategy;
    enum lu_sched_strategy st;
    int depth;
};

struct lu__smp {
    struct lu__src src;
    const struct lu__mix *mix;
    int nd;
    uint64_t n; /* executions drawn: n's schedule is a function of (seed, n) */
};

/* Execution n is member n % nd's, drawn with that member's seed and n / nd
 * (lu_sched_fork_prepare), on whichever lane is free: each lane has its
 * own scheduler per member, which only PCT's learned length differs in. */
static bool lu__smp_next(struct lu__src *src, struct lu__lane *L)
{
    struct lu__smp *M = (struct lu__smp *)src;
    unsigned k = (unsigned)(M->n % (uint64_t)M->nd);
    if (!L->mix[k]) {
        L->mix[k] = lu__sched_new(L, M->mix[k].st, -1, LU_SCHED_BOUND_PREEMPTIONS, M->mix[k].depth,
                                  R->cfg.seed + k, false, NULL);
        if (!L->mix[k])
            return false;
    }
    if (lu_sched_fork_prepare(L->mix[k], M->n / (uint64_t)M->nd) == LU_SCHED_EDONE)
        return false;
    M->n++;
    L->s = L->mix[k];
    L->strategy = M->mix[k].strategy;
    L->bound = -1;
    L->bound_kind = 0;
    L->depth = M->mix[k].depth;
    L->seed = R->cfg.seed + k;
    L->tally = &R->sum.sampled;
    return true;
}

/* Randomized executions, rotating over the given schedulers (one each, so
 * that each PCT depth learns its own k), until the budget or the share runs
 * out. */
static int lu__sample(const struct lu__mix *mix, int nd, uint64_t max_execs)
{
    struct lu__smp M = {.src = {.next = lu__smp_next}, .mix = mix, .nd = nd > 8 ? 8 : nd};
    int r = lu__lanes_run(&M.src, max_execs, 0);
    for (unsigned i = 0; i < lu__nlanes; i++) {
        struct lu__lane *L = &lu__lanes[i];
        for (int k = 0; k < 8; k++)
            if (L->mix[k])
                lu_sched_destroy(L->mix[k]);
        memset(L->mix, 0, sizeof L->mix);
        L->s = NULL;
        L->ready = false;
    }
    return r;
}

/* ---- a replay: one execution ---- */

struct lu__one {
    struct lu__src src;
    bool given;
};

static bool lu__one_next(struct lu__src *src, struct lu__lane *L)
{
    struct lu__one *O = (struct lu__one *)src;
    if (O->given || lu_sched_fork_prepare(L->s, 0) != 0)
        return false;
    O->given = true;
    L->strategy = LU_RUN_REPLAY;
    L->bound = -1;
    L->bound_kind = L->depth = 0;
    L->seed = 0;
    L->tally = NULL;
    return true;
}

/* The strategy of the run; fills the summary's coverage fields. */
static void lu__explore(void)
{
    const struct lu_run_cfg *c = &R->cfg;
    R->sum.bound_done = R->sum.bound_at = -1;
    int r = LU__ROUND_LIMIT;
    struct lu__round rd;
    switch (c->strategy) {
    case LU_RUN_REPLAY: {
        struct lu__lane *L = &lu__lanes[0];
        L->s = lu__sched_new(L, LU_SCHED_REPLAY, -1, 0, 0, 0, false, NULL);
        if (!L->s)
            break;
        struct lu__one one = {.src = {.next = lu__one_next}};
        lu__lanes_run(&one.src, 0, 0);
        /* the replayed execution is shown whatever it does */
        if (one.given) {
            X = L;
            lu__report('R');
        }
        lu_sched_destroy(L->s);
        L->s = NULL;
        return;
    }
    case LU_RUN_DFS:
        R->sum.bound_kind = LU_SCHED_BOUND_PREEMPTIONS;
        r = lu__dfs_round(LU_RUN_DFS, c->preemptions, LU_SCHED_BOUND_PREEMPTIONS, 0, 0, &rd);
        if (r == LU__ROUND_EXHAUSTED) {
            R->sum.bound_done = c->preemptions;
            R->sum.exhausted = rd.whole || c->preemptions < 0 ? 2 : 1;
        }
        break;
    case LU_RUN_IPB:
    case LU_RUN_IDB:
        r = lu__iterate(c->strategy,
                        c->strategy == LU_RUN_IDB ? LU_SCHED_BOUND_DELAYS : LU_SCHED_BOUND_PREEMPTIONS,
                        c->preemptions, 0, 0, &rd);
        break;
    case LU_RUN_RANDOM:
    case LU_RUN_PCT:
    case LU_RUN_POS: {
        int d = c->depth > 0 ? c->depth : 3;
        enum lu_sched_strategy st = c->strategy == LU_RUN_RANDOM ? LU_SCHED_RANDOM
                                    : c->strategy == LU_RUN_PCT  ? LU_SCHED_PCT
                                                                 : LU_SCHED_POS;
        struct lu__mix one = {c->strategy, st, d};
        r = lu__sample(&one, 1, 0);
        break;
    }
    case LU_RUN_DEFAULT:
    default: {
        /* Exhaustive first while it is cheap: bounds 0, 1, 2 (or up to
         * --preemptions) with half of the budget, since most bugs need few
         * preemptions and a small program may be covered completely; then
         * the rest in turn to PCT at depths 3 and 6 (a known probability per
         * execution for bugs of that depth, and good at orderings of many
         * threads), POS and the random walk (both good at bugs that need
         * many preemptions, which PCT's few change points do not reach). */
        uint64_t share = c->budget_execs ? (c->budget_execs + 1) / 2 : 0;
        double deadline = c->budget_ms ? S.t0 + (double)c->budget_ms / 2000.0 : 0;
        /* --preemptions -1: bounds 0, 1, 2, ... until the share runs out */
        r = lu__iterate(LU_RUN_DEFAULT, LU_SCHED_BOUND_PREEMPTIONS, c->preemptions, share, deadline, &rd);
        if (lu__stopped() || R->sum.exhausted == 2)
            break;
        R->sum.pass_out = r == LU__ROUND_LIMIT;
        /* A last bound that cut fewer alternatives than it ran executions
         * has left little beyond it (each cut roots a subtree, and there
         * were few): then an unbounded search, allowed as many executions
         * as the pass took, often finishes, and every schedule was
         * explored (an SV-COMP-style indexer: 212 executions for bounds 0
         * to 2, 155 for all of them). A program whose bound cuts more goes
         * to the samplers at once. On benchmarks/programs no bug is found
         * later than without this, one sooner, and 6 of the 34 correct
         * twins are covered completely within 1000 executions. */
        uint64_t cap = S.started;
        if (share)
            cap = S.started >= share ? 0 : share - S.started < cap ? share - S.started : cap;
        if (r == LU__ROUND_EXHAUSTED && rd.cut <= rd.execs && cap) {
            uint64_t before = S.started;
            r = lu__dfs_round(LU_RUN_DEFAULT, -1, LU_SCHED_BOUND_PREEMPTIONS, cap, deadline, &rd);
            R->sum.unbounded = S.started - before;
            R->sum.unbounded_out = r == LU__ROUND_LIMIT;
            if (r == LU__ROUND_EXHAUSTED) {
                R->sum.exhausted = 2;
                break;
            }
            if (lu__stopped())
                break;
        }
        static const struct lu__mix mix[] = {
            {LU_RUN_PCT, LU_SCHED_PCT, 3},
            {LU_RUN_POS, LU_SCHED_POS, 0},
            {LU_RUN_PCT, LU_SCHED_PCT, 6},
            {LU_RUN_RANDOM, LU_SCHED_RANDOM, 0},
        };
        r = lu__sample(mix, (int)(sizeof mix / sizeof mix[0]), 0);
        break;
    }
    }
    R->sum.budget_out = r == LU__ROUND_LIMIT;
}

static void lu__server_fail(const char *what)
{
    S.error = LU_RUN_K_INTERNAL;
    snprintf(R->sum.error_text, sizeof R->sum.error_text, "%s: %s", what, strerror(errno));
}

static int lu__server(int argc, char **argv, char **envp)
{
    lu__argc = argc;
    lu__argv = argv;
    lu__envp = envp;
    lu__server_pid = getpid();
    S.t0 = lu__now();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    lu__copy(R->program, sizeof R->program, exe);
    lu__module(R->program);
    /* Output as on a terminal: a line reaches the capture when it ends, so
     * a crash loses at most a partial line. */
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    /* Load the unwinder now, so that a child's fatal-signal path does not
     * have to (dlopen is not async-signal-safe). */
    void *warm[2];
    backtrace(warm, 2);
    lu__out_fd = (int)syscall(SYS_memfd_create, "lineup-output", 1u /* MFD_CLOEXEC */);
    if (lu__out_fd < 0 || fcntl(lu__out_fd, F_SETFL, O_APPEND) < 0)
        lu__server_fail("memfd_create");
    if (R->cfg.races && !LU__HAVE_RACES) {
        S.error = LU_RUN_K_INTERNAL;
        snprintf(R->sum.error_text, sizeof R->sum.error_text,
                 "--races: this liblineup.so was built without the data-race detector");
    }
    lu__copy(R->watchdog, sizeof R->watchdog, lu_sched_watchdog_name());
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &lu__prog_chld);
    if (!S.error && !lu__lanes_init())
        S.error = LU_RUN_K_RESOURCE;
    const char *split = getenv("LINEUP_SPLIT_AFTER");
    if (split && *split)
        lu__give_after = strtoull(split, NULL, 10);
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = lu__on_stop;
        sa.sa_flags = SA_RESTART | SA_SIGINFO; /* the wait for an execution polls the flag */
        sigemptyset(&sa.sa_mask);
        /* nohup's SIGHUP stays ignored */
        for (size_t i = 0; i < sizeof lu__stop_sigs / sizeof lu__stop_sigs[0]; i++)
            if (sigaction(lu__stop_sigs[i], NULL, &lu__prog_sa[i]) == 0 &&
                (lu__stop_sigs[i] != SIGHUP || lu__prog_sa[i].sa_handler != SIG_IGN))
                sigaction(lu__stop_sigs[i], &sa, NULL);
        lu__stop_handled = true;
        lu__stop_graceful = R->cfg.strategy != LU_RUN_REPLAY;
    }
    /* what an execution leaves running becomes ours when it ends, to end
     * too (lu__sweep_orphans); the flag is not inherited by executions */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    lu__send('H');
    if (!S.error)
        lu__explore();
    R->sum.executions = S.started;
    R->sum.secs = lu__now() - S.t0;
    if (S.error && !R->sum.error)
        R->sum.error = S.error;
    lu__copy(R->watchdog, sizeof R->watchdog, lu_sched_watchdog_name());
    lu__send('D');
    _exit(0);
}

/* LINEUP_RUN=SHM,CMD,REP: maps the region and checks it is ours. */
static bool lu__run_attach(void)
{
    const char *v = getenv(LU_RUN_ENV);
    if (!v)
        return false;
    int shm = -1, cmd = -1, rep = -1;
    if (sscanf(v, "%d,%d,%d", &shm, &cmd, &rep) != 3 || shm < 0 || cmd < 0 || rep < 0)
        return false;
    /* a program this one starts is not under lineup */
    unsetenv(LU_RUN_ENV);
    /* the region's header is large (about 125 KB): not on the stack, which
     * may be small here, before main, in every lineup-cc program */
    struct lu_run_shm *head = malloc(sizeof *head);
    size_t size = 0;
    if (head && pread(shm, head, sizeof *head, 0) == (ssize_t)sizeof *head && head->magic == LU_RUN_MAGIC &&
        head->version == LU_RUN_VERSION && head->size == lu_run_shm_size(head->trace_cap))
        size = head->size;
    free(head);
    if (!size)
        return false;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
    if (m == MAP_FAILED)
        return false;
    close(shm);
    R = m;
    lu__cmd_fd = cmd;
    lu__rep_fd = rep;
    fcntl(cmd, F_SETFD, FD_CLOEXEC);
    fcntl(rep, F_SETFD, FD_CLOEXEC);
    return true;
}

typedef int (*lu__start_fn)(lu__main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                            void *);

/* The program's entry: every executable linked by lineup-cc gets here
 * through liblineup.so (it precedes libc). The constructors and main are
 * libc's business as usual; in run mode main is replaced by the server. */
LU_EXPORT int __libc_start_main(lu__main_fn main, int argc, char **argv, void (*init)(void),
                                void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
LU_EXPORT int __libc_start_main(lu__main_fn main, int argc, char **argv, void (*init)(void),
                                void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    lu__start_fn real = (lu__start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    if (!real) /* liblineup.so loaded before anything that defines it */
        lu_sched_bug(__FILE__, __LINE__, "no __libc_start_main after liblineup.so");
    if (lu__run_attach()) {
        lu__main = main;
        main = lu__server;
        /* before the constructors, which may register exit handlers */
        Dl_info di;
        if (dladdr((void *)lu__main, &di))
            lu__ipose_exit_capture(di.dli_fbase);
    }
    return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}
