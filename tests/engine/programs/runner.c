/*
 * Engine tests on real programs: the scenarios of this directory (compiled
 * by lineup-cc with one compiler per runner binary) explored with lu_sched
 * through liblineup.so's pthread and __tsan_* interposers, checking that
 * the scheduler finds the bug of each buggy program, never reports one in
 * the fixed program, and that crashes, exits and divergence come back as a
 * replayable schedule.
 *
 * Every exploration runs in a forked child with a timeout: a scenario may
 * crash, exit or hang the process it runs in. The child leaves what it saw
 * in a MAP_SHARED block (on_fatal writes there too, and the trace buffer
 * itself lives there, so a schedule survives the child's death); all
 * assertions are made in the parent on that block and on how the child
 * ended.
 *
 * Usage: test_programs_<cc> [GROUP]   (no GROUP: every group)
 */
#define _GNU_SOURCE
#include "lu_sched.h"
#include "programs.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef LU_PROGRAMS_CC
#define LU_PROGRAMS_CC "cc"
#endif

#include "lu_test.h"

/* ======================================================= shared state */

#define TRACE_CAP 16384 /* livelocks alone take spin_bound (1000) steps */
#define REC_STEPS 512   /* steps kept per recorded schedule */
#define MAX_REC 4
#define WTHREADS 8       /* threads of a witness kept */
#define CHILD_TIMEOUT 90 /* seconds; under the ctest TIMEOUT */

/* One execution's end, copied out of lu_sched_result in the child. */
struct witness {
    int valid;
    int outcome;
    int nthreads;
    uint32_t steps;
    struct {
        int state;
        int k;
        uintptr_t obj;
        uintptr_t pc;
        char label[40];
    } th[WTHREADS];
};

/* A schedule and what it produced, for the replay test. */
struct recorded {
    uint64_t exec_no;
    int outcome;
    uint32_t len;
    int nlog;
    int log[REPLAY_MIX_LOG];
    struct lu_sched_step steps[REC_STEPS];
};

struct shm {
    /* on_fatal, on the dying thread: plain stores only */
    volatile int fatal_calls, fatal_kind, fatal_code, fatal_tid;
    volatile uintptr_t fatal_pc;
    volatile uint32_t fatal_trace_len;
    char wd_name[64];
    volatile int pfm_mapped; /* libpfm4 still mapped when the watchdog fired */
    /* the exploration */
    int create_err, run_err;
    uint64_t started, executions;
    uint64_t outcome[LU_SCHED_OUT_COUNT];
    int capped;
    /* what the per-execution checks saw */
    uint64_t bad, other;
    uint32_t values; /* bit v: value v was seen */
    uint64_t data_steps;
    struct witness w;
    int nrec;
    struct recorded rec[MAX_REC];
    struct recorded rep[MAX_REC];
    int rep_more[MAX_REC];
};

static struct shm *sh;
static struct lu_sched_trace *sh_trace; /* MAP_SHARED, TRACE_CAP steps */

static void *map_shared(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

/* Whether /proc/self/maps names a file whose name contains WHAT; by read(2)
 * alone, as on_fatal runs in a signal handler. */
static int maps_name(const char *what)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    static char buf[1 << 16];
    size_t len = 0, wl = strlen(what);
    ssize_t r;
    int found = 0;
    while ((r = read(fd, buf + len, sizeof buf - len)) > 0) {
        len += (size_t)r;
        for (size_t i = 0; i + wl <= len && !found; i++)
            found = memcmp(buf + i, what, wl) == 0;
        /* keep the tail that a match could straddle */
        size_t keep = len < wl ? len : wl;
        memmove(buf, buf + len - keep, keep);
        len = keep;
    }
    close(fd);
    return found;
}

/* Whether this process may open a perf event counting its own task clock:
 * the watchdog's second choice, a software event that needs no PMU. */
static bool perf_allowed(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static void on_fatal(void *arg, int kind, int code, int tid, uintptr_t pc)
{
    struct shm *s = arg;
    if (s->fatal_calls++ == 0) {
        s->fatal_kind = kind;
        s->fatal_code = code;
        s->fatal_tid = tid;
        s->fatal_pc = pc;
        s->fatal_trace_len = sh_trace->len;
    }
    /* by hand: strcpy is not on every async-signal-safe list */
    const char *n = lu_sched_watchdog_name();
    size_t i = 0;
    for (; n && n[i] && i + 1 < sizeof s->wd_name; i++)
        s->wd_name[i] = n[i];
    s->wd_name[i] = 0;
    s->pfm_mapped = maps_name("libpfm");
}

static void copy_witness(struct witness *w, const struct lu_sched_result *res)
{
    memset(w, 0, sizeof *w);
    w->valid = 1;
    w->outcome = res->outcome;
    w->nthreads = res->nthreads;
    w->steps = res->steps;
    for (int i = 0; i < WTHREADS && i < res->nthreads; i++) {
        w->th[i].state = res->threads[i].state;
        w->th[i].k = res->threads[i].k;
        w->th[i].obj = (uintptr_t)res->threads[i].obj;
        w->th[i].pc = res->threads[i].pc;
        const char *n = lu_sched_label_name(res->threads[i].label);
        snprintf(w->th[i].label, sizeof w->th[i].label, "%s", n ? n : "?");
    }
}

static void record(struct recorded *r, uint64_t exec_no, const struct lu_sched_result *res)
{
    r->exec_no = exec_no;
    r->outcome = res->outcome;
    r->len = sh_trace->len;
    r->nlog = replay_mix_nlog;
    memcpy(r->log, replay_mix_log, sizeof r->log);
    uint32_t n = r->len < REC_STEPS ? r->len : REC_STEPS;
    memcpy(r->steps, sh_trace->steps, n * sizeof r->steps[0]);
}

/* ======================================================= exploring in a child */

struct explore {
    enum lu_sched_strategy strategy;
    int bound;    /* preemption bound, -1 = unbounded */
    uint64_t cap; /* stop after this many executions; 0 = none */
    uint32_t watchdog_ms;
    const struct lu_sched_step *replay;
    uint32_t replay_len;
    lu_sched_fn body;
    void *arg;
    /* run in the child after each execution; true stops the exploration */
    bool (*after)(const struct lu_sched_result *res);
};

/* Child side: one scheduler, executions until done, capped or stopped. */
static void explore_in_child(const struct explore *e)
{
    sh->create_err = sh->run_err = 0;
    sh->started = sh->executions = 0;
    memset(sh->outcome, 0, sizeof sh->outcome);
    sh->capped = 0;
    sh_trace->cap = TRACE_CAP;
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = e->strategy;
    cfg.preemption_bound = e->bound;
    cfg.watchdog_ms = e->watchdog_ms;
    cfg.trace = sh_trace;
    cfg.replay = e->replay;
    cfg.replay_len = e->replay_len;
    cfg.on_fatal = on_fatal;
    cfg.on_fatal_arg = sh;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        sh->create_err = err ? err : -100;
        return;
    }
    struct lu_sched_result res;
    while (lu_sched_more(s)) {
        if (e->cap && sh->executions >= e->cap) {
            sh->capped = 1;
            break;
        }
        sh->started++;
        int rc = lu_sched_run(s, e->body, e->arg, &res);
        if (rc != 0) {
            sh->run_err = rc;
            break;
        }
        if (res.redundant)
            continue; /* a spinning thread given extra turns that kept spinning: nothing new */
        sh->executions++;
        if ((unsigned)res.outcome < LU_SCHED_OUT_COUNT)
            sh->outcome[res.outcome]++;
        if (e->after && e->after(&res))
            break;
    }
    lu_sched_destroy(s);
}

struct child {
    int status;
    bool timed_out;
    double secs; /* wall clock */
    double cpu;  /* user + system time of the child: the machine may be busy */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs fn(ctx) in a forked child, killed after timeout_s seconds. The
 * shared block is cleared first, except the trace (a replay may need it). */
static struct child in_child(void (*fn)(const void *), const void *ctx, int timeout_s)
{
    struct child c = {0, false, 0, 0};
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    memset(sh, 0, sizeof *sh);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        /* crashing is expected: no core files */
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_CORE, &rl);
        fn(ctx);
        _exit(0);
    }
    for (;;) {
        pid_t r = wait4(pid, &c.status, WNOHANG, &ru);
        if (r == pid)
            break;
        if (now_s() - t0 > timeout_s) {
            kill(pid, SIGKILL);
            wait4(pid, &c.status, 0, &ru);
            c.timed_out = true;
            break;
        }
        struct timespec d = {0, 2 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    c.secs = now_s() - t0;
    c.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
            (double)ru.ru_stime.tv_usec / 1e6;
    return c;
}

static void explore_fn(const void *ctx)
{
    explore_in_child(ctx);
}

static struct child explore(const struct explore *e)
{
    return in_child(explore_fn, e, CHILD_TIMEOUT);
}

static bool child_ok(const struct child *c)
{
    return !c->timed_out && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 && !sh->create_err &&
           !sh->run_err;
}

static const char *how(const struct child *c)
{
    static char buf[96];
    if (c->timed_out)
        snprintf(buf, sizeof buf, "timed out after %.1f s", c->secs);
    else if (WIFSIGNALED(c->status))
        snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(c->status));
    else if (sh->create_err || sh->run_err)
        snprintf(buf, sizeof buf, "lu_sched error %d/%d", sh->create_err, sh->run_err);
    else
        snprintf(buf, sizeof buf, "exit status %d", WEXITSTATUS(c->status));
    return buf;
}

static bool all_complete(void)
{
    return sh->executions > 0 && !sh->capped && sh->outcome[LU_SCHED_OUT_COMPLETE] == sh->executions;
}

static void print_tally(const char *name, const struct child *c)
{
    printf("  %-34s %6llu executions:", name, (unsigned long long)sh->executions);
    for (int o = 0; o < LU_SCHED_OUT_COUNT; o++)
        if (sh->outcome[o])
            printf(" %s=%llu", lu_sched_outcome_name((enum lu_sched_outcome)o),
                   (unsigned long long)sh->outcome[o]);
    printf("%s (%.2f s, %.2f s CPU)\n", sh->capped ? " (capped)" : "", c->secs, c->cpu);
}

/* Name of the function containing pc, from the dynamic symbol table. */
static const char *symbol_at(uintptr_t pc)
{
    Dl_info info;
    if (!pc || !dladdr((void *)pc, &info) || !info.dli_sname)
        return "?";
    return info.dli_sname;
}

/* A return address may point past the end of a call that does not return
 * (exit): look up the call instruction instead. */
static const char *caller_symbol(uintptr_t ret)
{
    return ret ? symbol_at(ret - 1) : "?";
}

/* ======================================================= 1. lost update */

static bool lost_update_after(const struct lu_sched_result *res)
{
    (void)res; /* outcomes are tallied by explore_in_child */
    int v = lost_update_final;
    if (v >= 0 && v < 32)
        sh->values |= 1u << v;
    if (v != 4)
        sh->bad++;
    return false;
}

static void test_lost_update(void)
{
    struct explore e = {.strategy = LU_SCHED_DFS,
                        .bound = -1,
                        .body = lost_update_main,
                        .arg = PROG_BUGGY,
                        .after = lost_update_after};
    struct child c = explore(&e);
    print_tally("lost update (load/store)", &c);
    CHECK(child_ok(&c), "lost update exploration: %s", how(&c));
    CHECK(all_complete(), "every execution of the racy counter completes");
    CHECK(sh->bad > 0, "DFS finds an execution with a lost update");
    CHECK(sh->values == (1u << 2 | 1u << 3 | 1u << 4), "final counts are exactly {2, 3, 4} (mask %#x)",
          sh->values);

    e.arg = PROG_FIXED;
    c = explore(&e);
    print_tally("no lost update (fetch_add)", &c);
    CHECK(child_ok(&c), "fetch_add exploration: %s", how(&c));
    CHECK(all_complete(), "every execution of the fetch_add counter completes");
    CHECK(sh->executions > 1, "the fetch_add counter has several interleavings (%llu)",
          (unsigned long long)sh->executions);
    CHECK(sh->bad == 0 && sh->values == 1u << 4, "fetch_add always ends at 4 (%llu bad, mask %#x)",
          (unsigned long long)sh->bad, sh->values);
}

/* ======================================================= 2. lock-order inversion */

static bool first_stuck_after(const struct lu_sched_result *res)
{
    if (res->outcome == LU_SCHED_OUT_DEADLOCK && !sh->w.valid)
        copy_witness(&sh->w, res);
    return false;
}

static void test_lock_order(void)
{
    struct explore e = {.strategy = LU_SCHED_DFS,
                        .bound = -1,
                        .body = lock_order_main,
                        .arg = PROG_BUGGY,
                        .after = first_stuck_after};
    struct child c = explore(&e);
    print_tally("lock-order inversion", &c);
    CHECK(child_ok(&c), "inversion exploration: %s", how(&c));
    CHECK(sh->outcome[LU_SCHED_OUT_DEADLOCK] > 0, "the inversion deadlock is found");
    CHECK(sh->outcome[LU_SCHED_OUT_COMPLETE] > 0, "some executions of the inversion complete");
    CHECK(sh->outcome[LU_SCHED_OUT_DEADLOCK] + sh->outcome[LU_SCHED_OUT_COMPLETE] == sh->executions,
          "no other outcome");
    const struct witness *w = &sh->w;
    CHECK(w->valid && w->nthreads == 3, "deadlock witness with 3 threads (%d)", w->nthreads);
    if (w->valid && w->nthreads == 3) {
        static const char *const fn[3] = {"lock_order_main", "lock_order_ab", "lock_order_ba"};
        const uintptr_t want_obj[3] = {0, (uintptr_t)&lock_order_b, (uintptr_t)&lock_order_a};
        for (int i = 1; i <= 2; i++) {
            printf("  thread %d: blocked in %s at %s (pc %#lx)\n", i, w->th[i].label,
                   caller_symbol(w->th[i].pc), (unsigned long)w->th[i].pc);
            CHECK(w->th[i].state == LU_SCHED_TS_BLOCKED, "thread %d is blocked (state %d)", i,
                  w->th[i].state);
            CHECK(strcmp(w->th[i].label, "pthread_mutex_lock") == 0,
                  "thread %d blocks in pthread_mutex_lock (%s)", i, w->th[i].label);
            CHECK(w->th[i].k == LU_SCHED_K_MUTEX_LOCK, "thread %d's pending operation is a mutex lock (%d)",
                  i, w->th[i].k);
            CHECK(w->th[i].pc != 0, "thread %d's blocking call has a pc", i);
            CHECK(strcmp(caller_symbol(w->th[i].pc), fn[i]) == 0, "thread %d's pc is in %s (%s)", i, fn[i],
                  caller_symbol(w->th[i].pc));
            CHECK(w->th[i].obj == want_obj[i], "thread %d waits for the mutex the other holds", i);
        }
        CHECK(w->th[0].state == LU_SCHED_TS_BLOCKED && strcmp(w->th[0].label, "pthread_join") == 0,
              "main is blocked in pthread_join (%d, %s)", w->th[0].state, w->th[0].label);
    }

    e.arg = PROG_FIXED;
    c = explore(&e);
    print_tally("same lock order", &c);
    CHECK(child_ok(&c), "ordered exploration: %s", how(&c));
    CHECK(all_complete() && sh->executions > 1, "locks taken in one order never deadlock");
}

/* ======================================================= 3. condition variable lost wakeup */

static bool cond_after(const struct lu_sched_result *res)
{
    if (res->outcome == LU_SCHED_OUT_DEADLOCK && !sh->w.valid)
        copy_witness(&sh->w, res);
    if (res->outcome == LU_SCHED_OUT_COMPLETE && cond_wakeup_saw != 1)
        sh->bad++;
    return false;
}

static void test_cond_wakeup(void)
{
    struct explore e = {.strategy = LU_SCHED_DFS,
                        .bound = -1,
                        .body = cond_wakeup_main,
                        .arg = PROG_BUGGY,
                        .after = cond_after};
    struct child c = explore(&e);
    print_tally("cond var, flag tested unlocked", &c);
    CHECK(child_ok(&c), "lost-wakeup exploration: %s", how(&c));
    CHECK(sh->outcome[LU_SCHED_OUT_DEADLOCK] > 0, "the lost wakeup is found as a deadlock");
    CHECK(sh->outcome[LU_SCHED_OUT_COMPLETE] > 0, "the buggy waiter also succeeds in some executions");
    const struct witness *w = &sh->w;
    if (w->valid && w->nthreads == 3) {
        printf("  waiter stuck in %s at %s\n", w->th[1].label, caller_symbol(w->th[1].pc));
        CHECK(w->th[1].state == LU_SCHED_TS_BLOCKED && strcmp(w->th[1].label, "pthread_cond_wait") == 0,
              "the waiter is blocked in pthread_cond_wait (%d, %s)", w->th[1].state, w->th[1].label);
        CHECK(w->th[2].state == LU_SCHED_TS_FINISHED, "the signaller finished (%d)", w->th[2].state);
    } else {
        CHECK(0, "lost-wakeup witness with 3 threads (valid %d, %d threads)", w->valid, w->nthreads);
    }

    e.arg = PROG_FIXED;
    c = explore(&e);
    print_tally("cond var, while loop under lock", &c);
    CHECK(child_ok(&c), "correct cond var exploration: %s", how(&c));
    CHECK(all_complete() && sh->executions > 1, "the correct waiter never gets stuck");
    CHECK(sh->bad == 0, "the correct waiter always sees the flag set (%llu bad)",
          (unsigned long long)sh->bad);
}

/* ======================================================= 4. spin locks and livelock */

static int spin_expect;

static bool spin_after(const struct lu_sched_result *res)
{
    if (res->outcome != LU_SCHED_OUT_COMPLETE) {
        sh->other++;
        if (!sh->w.valid)
            copy_witness(&sh->w, res);
    } else if (spin_final != spin_expect) {
        sh->bad++;
    }
    return false;
}

/* Unbounded DFS of a spin lock does not finish in reasonable time; this
 * many executions (per lock and compiler) keeps the tier fast. */
#define SPIN_CAP 20000

static void spin_case(const char *lock, enum spin_kind kind, int threads, int iters)
{
    static const int bounds[] = {0, 1, 2, -1};
    uint64_t prev = 0;
    spin_threads = threads;
    spin_iters = iters;
    spin_expect = threads * iters;
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        int bound = bounds[b];
        struct explore e = {.strategy = LU_SCHED_DFS,
                            .bound = bound,
                            .cap = bound < 0 ? SPIN_CAP : 0,
                            .body = spin_locks_main,
                            .arg = (void *)(intptr_t)kind,
                            .after = spin_after};
        char name[64];
        snprintf(name, sizeof name, "%s %dx%d, bound %d", lock, threads, iters, bound);
        struct child c = explore(&e);
        print_tally(name, &c);
        CHECK(child_ok(&c), "%s: %s", name, how(&c));
        CHECK(sh->executions > 0 && sh->outcome[LU_SCHED_OUT_COMPLETE] == sh->executions,
              "%s: every execution completes (%llu livelock, %llu too long, %llu other)", name,
              (unsigned long long)sh->outcome[LU_SCHED_OUT_LIVELOCK],
              (unsigned long long)sh->outcome[LU_SCHED_OUT_TOO_LONG], (unsigned long long)sh->other);
        if (sh->w.valid)
            printf("  first bad end: %s, %u steps\n", lu_sched_outcome_name(sh->w.outcome), sh->w.steps);
        CHECK(sh->bad == 0, "%s: the counter is %d in every execution (%llu wrong)", name, spin_expect,
              (unsigned long long)sh->bad);
        if (bound >= 0) {
            CHECK(!sh->capped, "%s: exhausted", name);
            CHECK(sh->executions > prev, "%s: a larger bound explores more (%llu after %llu)", name,
                  (unsigned long long)sh->executions, (unsigned long long)prev);
        } else {
            /* small cases are exhausted before the cap */
            CHECK(sh->capped ? sh->executions == SPIN_CAP : sh->executions > prev,
                  "%s: explores up to the cap or beyond bound 2 (%llu)", name,
                  (unsigned long long)sh->executions);
        }
        prev = sh->executions;
    }
}

static void test_spin_locks(void)
{
    spin_case("test-and-set", SPIN_TAS, 2, 2);
    spin_case("test-and-set", SPIN_TAS, 3, 1);
    spin_case("ticket", SPIN_TICKET, 2, 2);
    spin_case("ticket", SPIN_TICKET, 3, 1);
}

static bool livelock_after(const struct lu_sched_result *res)
{
    if (res->outcome == LU_SCHED_OUT_LIVELOCK && !sh->w.valid)
        copy_witness(&sh->w, res);
    return false;
}

static void test_livelock(void)
{
    spin_threads = 2;
    spin_iters = 2;
    struct explore e = {.strategy = LU_SCHED_DFS,
                        .bound = 2,
                        .body = spin_locks_main,
                        .arg = (void *)(intptr_t)SPIN_NEVER_SET,
                        .after = livelock_after};
    struct child c = explore(&e);
    print_tally("spin on a flag never set", &c);
    CHECK(child_ok(&c), "never-set exploration: %s", how(&c));
    CHECK(sh->executions > 1 && sh->outcome[LU_SCHED_OUT_LIVELOCK] == sh->executions,
          "waiting for a flag nobody sets is a livelock in every execution");
    const struct witness *w = &sh->w;
    if (w->valid && w->nthreads == 3) {
        printf("  spinning thread: %s, %u steps\n", w->th[1].label, w->steps);
        CHECK(w->th[1].state == LU_SCHED_TS_SPINNING && w->th[1].k == LU_SCHED_K_READ,
              "thread 1 is spinning on a read (%d, %d)", w->th[1].state, w->th[1].k);
        CHECK(w->th[2].state == LU_SCHED_TS_FINISHED, "thread 2 finished (%d)", w->th[2].state);
    } else {
        CHECK(0, "livelock witness with 3 threads (valid %d, %d threads)", w->valid, w->nthreads);
    }

    e.arg = (void *)(intptr_t)SPIN_TICKET_LEAK;
    c = explore(&e);
    print_tally("ticket lock never released", &c);
    CHECK(child_ok(&c), "leaked-lock exploration: %s", how(&c));
    CHECK(sh->outcome[LU_SCHED_OUT_LIVELOCK] > 0, "a thread waiting for a lock never released is a livelock");
    CHECK(sh->outcome[LU_SCHED_OUT_LIVELOCK] + sh->outcome[LU_SCHED_OUT_COMPLETE] == sh->executions,
          "no other outcome than livelock and complete");
    if (w->valid && w->nthreads == 3)
        CHECK(w->th[2].state == LU_SCHED_TS_SPINNING && w->th[1].state == LU_SCHED_TS_FINISHED,
              "thread 2 spins on the lock thread 1 left held (%d, %d)", w->th[2].state, w->th[1].state);
    else
        CHECK(0, "leaked-lock witness with 3 threads");
}

/* ======================================================= 5. watchdog */

static void test_watchdog(void)
{
    struct explore e = {.strategy = LU_SCHED_DFS, .bound = -1, .watchdog_ms = 200, .body = plain_spin_main};
    struct child c = explore(&e);
    printf("  watchdog: %s; child: %s after %.2f s (%.2f s CPU)\n",
           sh->wd_name[0] ? sh->wd_name : "(not reported)", how(&c), c.secs, c.cpu);
    CHECK(!c.timed_out, "the plain-int spin is stopped by the watchdog, not by the test's timeout");
    /* CPU time, not wall time: the watchdog counts the thread's own
     * execution, and a loaded machine stretches the wall clock */
    CHECK(c.cpu < 3.0, "within a few watchdog periods of CPU time (%.2f s)", c.cpu);
    CHECK(sh->fatal_calls == 1 && sh->fatal_kind == LU_SCHED_FATAL_DIVERGE,
          "on_fatal reports divergence once (%d calls, kind %d)", sh->fatal_calls, sh->fatal_kind);
    CHECK(sh->fatal_tid == 1, "the diverging thread is thread 1 (%d)", sh->fatal_tid);
    CHECK(sh->fatal_pc != 0, "divergence has a pc");
    CHECK(sh->executions == 0, "the execution never returned (%llu)", (unsigned long long)sh->executions);
    CHECK(!WIFSIGNALED(c.status) || c.timed_out, "the child ended itself (%s)", how(&c));
    CHECK(sh->wd_name[0] && strcmp(sh->wd_name, "none") != 0, "a watchdog was armed (%s)", sh->wd_name);
    /* libpfm4 is opened at run time to encode the events, and closed */
    if (perf_allowed())
        CHECK(strstr(sh->wd_name, "(libpfm4)") != NULL,
              "perf events are allowed here, so the watchdog is one (%s)", sh->wd_name);
    CHECK(sh->pfm_mapped == 0, "libpfm4 is unmapped once the events are encoded (%d)", sh->pfm_mapped);
}

/* ======================================================= 6/7. crash, exit, and their replays */

/* What a fatal end looked like, to compare the replay with the original. */
struct fatal_end {
    int status;
    int kind, code, tid;
    uintptr_t pc;
    uint32_t len;
    uint64_t started;
    struct lu_sched_step *steps;
};

static void save_end(struct fatal_end *f, const struct child *c)
{
    f->status = c->status;
    f->kind = sh->fatal_kind;
    f->code = sh->fatal_code;
    f->tid = sh->fatal_tid;
    f->pc = sh->fatal_pc;
    f->started = sh->started;
    f->len = sh->fatal_trace_len;
    free(f->steps);
    f->steps = malloc((f->len + 1) * sizeof *f->steps);
    memcpy(f->steps, sh_trace->steps, f->len * sizeof *f->steps);
}

static bool same_choices(const struct lu_sched_step *a, const struct lu_sched_step *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i].kind != b[i].kind || a[i].chosen != b[i].chosen)
            return false;
    return true;
}

/* Explores body until it ends the process; then replays the schedule it
 * left in the shared trace in a new child, which must end the same way,
 * and runs the default schedule (DFS's first execution), which must not. */
static void fatal_and_replay(const char *name, lu_sched_fn body, int kind, int code, int tid, const char *fn,
                             bool (*ended_right)(int status))
{
    struct explore e = {.strategy = LU_SCHED_DFS, .bound = -1, .cap = 1000, .body = body};
    struct child c = explore(&e);
    printf("  %s: child %s after %llu executions; on_fatal kind %d code %d thread %d at %s, %u choices\n",
           name, how(&c), (unsigned long long)sh->started, sh->fatal_kind, sh->fatal_code, sh->fatal_tid,
           kind == LU_SCHED_FATAL_SIGNAL ? symbol_at(sh->fatal_pc) : caller_symbol(sh->fatal_pc),
           sh->fatal_trace_len);
    CHECK(!c.timed_out && ended_right(c.status), "%s ends the exploring process (%s)", name, how(&c));
    CHECK(sh->fatal_calls == 1 && sh->fatal_kind == kind && sh->fatal_code == code,
          "%s: on_fatal kind %d code %d (%d calls, kind %d, code %d)", name, kind, code, sh->fatal_calls,
          sh->fatal_kind, sh->fatal_code);
    CHECK(sh->fatal_tid == tid, "%s: by thread %d (%d)", name, tid, sh->fatal_tid);
    const char *where = kind == LU_SCHED_FATAL_SIGNAL ? symbol_at(sh->fatal_pc) : caller_symbol(sh->fatal_pc);
    CHECK(strcmp(where, fn) == 0, "%s: at a pc in %s (%s)", name, fn, where);
    CHECK(sh->started >= 2, "%s: not in the first (default) execution, so the schedule matters (%llu)", name,
          (unsigned long long)sh->started);
    CHECK(sh->fatal_trace_len > 0 && sh->fatal_trace_len == sh_trace->len,
          "%s: the shared trace holds the schedule (%u choices)", name, sh->fatal_trace_len);

    struct fatal_end orig = {0};
    save_end(&orig, &c);

    struct explore r = {
        .strategy = LU_SCHED_REPLAY, .bound = -1, .body = body, .replay = orig.steps, .replay_len = orig.len};
    c = explore(&r);
    printf("  %s replayed: child %s, on_fatal kind %d code %d thread %d, %u choices\n", name, how(&c),
           sh->fatal_kind, sh->fatal_code, sh->fatal_tid, sh->fatal_trace_len);
    CHECK(!c.timed_out && c.status == orig.status, "%s replay: the process ends the same way (%s)", name,
          how(&c));
    CHECK(sh->fatal_calls == 1 && sh->fatal_kind == orig.kind && sh->fatal_code == orig.code &&
              sh->fatal_tid == orig.tid,
          "%s replay: same on_fatal report (kind %d code %d thread %d)", name, sh->fatal_kind, sh->fatal_code,
          sh->fatal_tid);
    CHECK(sh->fatal_pc == orig.pc, "%s replay: same pc", name);
    CHECK(sh->started == 1, "%s replay: in its only execution (%llu)", name, (unsigned long long)sh->started);
    CHECK(sh->fatal_trace_len == orig.len && same_choices(sh_trace->steps, orig.steps, orig.len),
          "%s replay: the same choices (%u of %u)", name, sh->fatal_trace_len, orig.len);

    /* not an empty replay: that stops at its first choice (it does not fit) */
    struct explore d = {.strategy = LU_SCHED_DFS, .bound = -1, .cap = 1, .body = body};
    c = explore(&d);
    CHECK(child_ok(&c) && sh->executions == 1 && sh->outcome[LU_SCHED_OUT_COMPLETE] == 1 && !sh->fatal_calls,
          "%s: the default schedule completes without it (%s)", name, how(&c));
    free(orig.steps);
}

static bool died_of_segv(int status)
{
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static bool exited_3(int status)
{
    return WIFEXITED(status) && WEXITSTATUS(status) == 3;
}

static void test_segv(void)
{
    fatal_and_replay("NULL dereference", segv_main, LU_SCHED_FATAL_SIGNAL, SIGSEGV, 2, "segv_reader",
                     died_of_segv);
}

static void test_exit(void)
{
    fatal_and_replay("exit(3)", exit3_main, LU_SCHED_FATAL_EXIT, 3, 1, "exit3_checker", exited_3);
}

/* ======================================================= 8. replay */

/* Executions of the DFS to record (1-based), besides the first one where a
 * signal woke the later waiter (a non-default data choice) and the last
 * one. */
static const uint64_t replay_pick[] = {5, 17};

static bool replay_after(const struct lu_sched_result *res)
{
    uint64_t n = sh->executions;
    bool has_data = false;
    for (uint32_t i = 0; i < sh_trace->len; i++)
        if (sh_trace->steps[i].kind == LU_SCHED_CHOOSE_DATA && sh_trace->steps[i].chosen != 0)
            has_data = true;
    if (has_data)
        sh->data_steps++;
    if (res->outcome != LU_SCHED_OUT_COMPLETE || replay_mix_nlog != 4)
        sh->bad++;
    bool pick = n == replay_pick[0] || n == replay_pick[1];
    /* slot 2: the first with a non-default data choice; slot 3: the latest */
    if (pick)
        record(&sh->rec[n == replay_pick[0] ? 0 : 1], n, res);
    if (has_data && !sh->rec[2].exec_no)
        record(&sh->rec[2], n, res);
    record(&sh->rec[3], n, res);
    sh->nrec = MAX_REC;
    return false;
}

/* ctx: the recorded schedules, in the parent's memory (in_child clears the
 * shared block). */
static void replay_fn(const void *ctx)
{
    for (int i = 0; i < MAX_REC; i++) {
        const struct recorded *r = (const struct recorded *)ctx + i;
        struct lu_sched_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.strategy = LU_SCHED_REPLAY;
        cfg.trace = sh_trace;
        sh_trace->cap = TRACE_CAP;
        cfg.replay = r->steps;
        cfg.replay_len = r->len;
        cfg.on_fatal = on_fatal;
        cfg.on_fatal_arg = sh;
        struct lu_sched *s = lu_sched_create(&cfg, NULL);
        if (!s) {
            sh->create_err = LU_SCHED_EINVAL;
            return;
        }
        struct lu_sched_result res;
        int rc = lu_sched_run(s, replay_mix_main, NULL, &res);
        if (rc) {
            sh->run_err = rc;
            return;
        }
        record(&sh->rep[i], 1, &res);
        sh->rep_more[i] = lu_sched_more(s);
        lu_sched_destroy(s);
    }
}

static void test_replay(void)
{
    int failures_before = failures;
    struct explore e = {.strategy = LU_SCHED_DFS, .bound = 1, .body = replay_mix_main, .after = replay_after};
    struct child c = explore(&e);
    print_tally("replay_mix, bound 1", &c);
    CHECK(child_ok(&c), "replay_mix exploration: %s", how(&c));
    CHECK(sh->bad == 0 && all_complete(), "replay_mix completes with 4 log entries in every execution");
    CHECK(sh->executions >= replay_pick[1], "at least %llu executions (%llu)",
          (unsigned long long)replay_pick[1], (unsigned long long)sh->executions);
    CHECK(sh->data_steps > 0, "some schedules wake the second waiter (a data choice)");
    CHECK(sh->rec[2].exec_no > 0, "a schedule with a non-default data choice was recorded");
    CHECK(sh->rec[0].len <= REC_STEPS && sh->rec[1].len <= REC_STEPS && sh->rec[2].len <= REC_STEPS &&
              sh->rec[3].len <= REC_STEPS,
          "recorded schedules fit (%u, %u, %u, %u steps)", sh->rec[0].len, sh->rec[1].len, sh->rec[2].len,
          sh->rec[3].len);
    bool differ = sh->rec[0].len != sh->rec[1].len ||
                  !same_choices(sh->rec[0].steps, sh->rec[1].steps, sh->rec[0].len) ||
                  memcmp(sh->rec[0].log, sh->rec[1].log, sizeof sh->rec[0].log) != 0;
    CHECK(differ, "executions %llu and %llu differ", (unsigned long long)replay_pick[0],
          (unsigned long long)replay_pick[1]);

    struct recorded rec[MAX_REC];
    memcpy(rec, sh->rec, sizeof rec);
    if (failures != failures_before)
        return; /* nothing sound to replay */

    c = in_child(replay_fn, rec, CHILD_TIMEOUT);
    CHECK(child_ok(&c), "replays: %s", how(&c));
    for (int i = 0; i < MAX_REC; i++) {
        const struct recorded *a = &rec[i], *b = &sh->rep[i];
        printf("  execution %4llu: %3u choices, log", (unsigned long long)a->exec_no, a->len);
        for (int j = 0; j < a->nlog && j < REPLAY_MIX_LOG; j++)
            printf(" %d", a->log[j]);
        printf("; replay: %u choices, %s\n", b->len,
               lu_sched_outcome_name((enum lu_sched_outcome)b->outcome));
        CHECK(b->outcome == a->outcome, "replay of execution %llu: same outcome (%d, %d)",
              (unsigned long long)a->exec_no, b->outcome, a->outcome);
        CHECK(b->nlog == a->nlog && memcmp(b->log, a->log, sizeof a->log) == 0,
              "replay of execution %llu: the same observed values", (unsigned long long)a->exec_no);
        CHECK(b->len == a->len, "replay of execution %llu: same trace length (%u, %u)",
              (unsigned long long)a->exec_no, b->len, a->len);
        CHECK(same_choices(b->steps, a->steps, a->len < REC_STEPS ? a->len : REC_STEPS),
              "replay of execution %llu: the same choices", (unsigned long long)a->exec_no);
        CHECK(!sh->rep_more[i], "replay of execution %llu: runs once", (unsigned long long)a->exec_no);
    }
}

/* ======================================================= main */

static const struct group {
    const char *name;
    void (*fn)(void);
} groups[] = {
    {"lost_update", test_lost_update},
    {"lock_order", test_lock_order},
    {"cond_wakeup", test_cond_wakeup},
    {"spin_locks", test_spin_locks},
    {"livelock", test_livelock},
    {"watchdog", test_watchdog},
    {"segv", test_segv},
    {"exit", test_exit},
    {"replay", test_replay},
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    sh = map_shared(sizeof *sh);
    sh_trace = map_shared(lu_sched_trace_size(TRACE_CAP));
    sh_trace->cap = TRACE_CAP;
    int ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        if (argc > 1 && strcmp(argv[1], groups[i].name) != 0)
            continue;
        printf("%s (%s)\n", groups[i].name, LU_PROGRAMS_CC);
        groups[i].fn();
        ran++;
    }
    if (!ran) {
        printf("unknown group %s\n", argv[1]);
        return 2;
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
