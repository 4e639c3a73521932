/*
 * bench_sched: raw speed of lineup's scheduler on an atomic-counter program.
 *
 * T worker threads each do K atomic increments of one shared counter (K
 * scheduling points per thread), started by a main thread that waits for
 * them. One "execution" is one run of that program. Modes:
 *
 *   api        the scheduler driven directly: lu_sched_spawn/join_all and
 *              lu_sched_access_begin/end around atomic_fetch_add (as
 *              tests/engine/test_sched_counts.c does)
 *   tsan       the same, but the workers are compiled with lineup-cc
 *              (bench_sched_tsan.c): their increments are plain C11
 *              atomic_fetch_add, reaching the scheduler through lineup's
 *              __tsan_atomic64_fetch_add hook
 *   native     no lineup: pthread_create/pthread_join of T real threads per
 *              execution (the baseline)
 *   pingpong-futex / pingpong-spin / pingpong-ucontext
 *              no lineup: the cost of one baton handoff between two threads
 *              (futex wake + wait, like lu_sched; busy-waiting on a shared
 *              word; swapcontext between two coroutines on one thread)
 *
 * Built twice by run_sched.sh: with -DBENCH_WITH_LINEUP (api, tsan; linked
 * with liblineup.so and bench_sched_tsan.o) and without (native, pingpong-*).
 *
 * Prints one line of key=value pairs; exits non-zero if an execution does not
 * complete or loses an increment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef BENCH_WITH_LINEUP
#include "lu_sched.h"

/* bench_sched_tsan.c, compiled with lineup-cc */
void *bench_tsan_worker(void *arg);
void bench_tsan_set(int steps);
long bench_tsan_get(void);
#endif

static int nthreads = 3;
static double max_seconds = 0; /* -T: stop early after this much wall time */
static bool explore_once;      /* -x: DFS stops when its tree is exhausted */
static int ksteps = 10;
static _Atomic long counter;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "bench_sched: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(1);
}

struct usage {
    double t, user, sys;
    long vcsw, ivcsw;
};

static struct usage usage_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (struct usage){now(), (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
                          (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, ru.ru_nvcsw,
                          ru.ru_nivcsw};
}

static void print_usage_delta(struct usage a, struct usage b, uint64_t n)
{
    double dn = n ? (double)n : 1.0;
    double cpu = (b.user - a.user) + (b.sys - a.sys);
    /* per_cpu_s: items per second of CPU time (all threads of the process):
     * the rate one otherwise idle core would reach if nothing but CPU time
     * mattered; robust when the machine is loaded and wall-clock time is
     * mostly waiting for a core */
    printf(" seconds=%.4f user_s=%.3f sys_s=%.3f cpu_us_per_item=%.2f per_cpu_s=%.0f vcsw_per_item=%.2f "
           "ivcsw_per_item=%.2f",
           b.t - a.t, b.user - a.user, b.sys - a.sys, cpu * 1e6 / dn, cpu > 0 ? dn / cpu : 0.0,
           (double)(b.vcsw - a.vcsw) / dn, (double)(b.ivcsw - a.ivcsw) / dn);
}

/* ---- native baseline ---- */

static void *native_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ksteps; i++)
        atomic_fetch_add(&counter, 1);
    return NULL;
}

static int run_native(uint64_t n)
{
    pthread_t th[64];
    struct usage a = usage_now();
    uint64_t e;
    for (e = 0; e < n; e++) {
        if (max_seconds > 0 && now() - a.t > max_seconds)
            break;
        atomic_store(&counter, 0);
        for (int i = 0; i < nthreads; i++)
            if (pthread_create(&th[i], NULL, native_worker, NULL) != 0)
                die("%s", "pthread_create failed");
        for (int i = 0; i < nthreads; i++)
            pthread_join(th[i], NULL);
        if (atomic_load(&counter) != (long)nthreads * ksteps)
            die("%s", "native: lost an increment");
    }
    struct usage b = usage_now();
    printf("mode=native threads=%d steps=%d strategy=- bound=- executions=%llu exec_per_s=%.0f", nthreads,
           ksteps, (unsigned long long)e, (double)e / (b.t - a.t));
    print_usage_delta(a, b, e);
    printf("\n");
    return 0;
}

/* ---- handoff micro-benchmarks ---- */

static _Atomic uint32_t baton[2];

static void give(int i)
{
    atomic_store_explicit(&baton[i], 1, memory_order_release);
    syscall(SYS_futex, &baton[i], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void take(int i)
{
    while (atomic_exchange_explicit(&baton[i], 0, memory_order_acquire) != 1)
        syscall(SYS_futex, &baton[i], FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void spin_give(int i)
{
    atomic_store_explicit(&baton[i], 1, memory_order_release);
}

static void spin_take(int i)
{
    while (atomic_exchange_explicit(&baton[i], 0, memory_order_acquire) != 1)
        __builtin_ia32_pause();
}

static _Atomic bool pp_stop;
static bool pp_spin;

static void *pp_partner(void *arg)
{
    (void)arg;
    for (;;) {
        if (pp_spin)
            spin_take(1);
        else
            take(1);
        if (atomic_load(&pp_stop))
            break;
        if (pp_spin)
            spin_give(0);
        else
            give(0);
    }
    return NULL;
}

static ucontext_t uc_main, uc_co;

static void co_body(void)
{
    for (;;)
        swapcontext(&uc_co, &uc_main);
}

static int run_pingpong(const char *kind, uint64_t rounds)
{
    struct usage a, b;
    uint64_t done = 0;
    bool uc = strcmp(kind, "ucontext") == 0;
    pthread_t th;
    if (uc) {
        static char stack[1 << 16];
        getcontext(&uc_co);
        uc_co.uc_stack.ss_sp = stack;
        uc_co.uc_stack.ss_size = sizeof stack;
        uc_co.uc_link = NULL;
        makecontext(&uc_co, co_body, 0);
    } else {
        pp_spin = strcmp(kind, "spin") == 0;
        if (!pp_spin && strcmp(kind, "futex") != 0)
            die("unknown pingpong kind %s", kind);
        if (pthread_create(&th, NULL, pp_partner, NULL) != 0)
            die("%s", "pthread_create failed");
    }
    a = usage_now();
    for (done = 0; done < rounds; done++) {
        if (max_seconds > 0 && (done & 255) == 0 && now() - a.t > max_seconds)
            break;
        if (uc) {
            swapcontext(&uc_main, &uc_co);
        } else if (pp_spin) {
            spin_give(1);
            spin_take(0);
        } else {
            give(1);
            take(0);
        }
    }
    b = usage_now();
    if (!uc) {
        atomic_store(&pp_stop, true);
        if (pp_spin)
            spin_give(1);
        else
            give(1);
        pthread_join(th, NULL);
    }
    /* two handoffs per round */
    printf("mode=pingpong-%s rounds=%llu handoffs_per_s=%.0f ns_per_handoff=%.1f", kind,
           (unsigned long long)done, 2.0 * (double)done / (b.t - a.t),
           (b.t - a.t) * 1e9 / (2.0 * (double)done));
    print_usage_delta(a, b, 2 * done);
    printf("\n");
    return 0;
}

/* ---- under lineup's scheduler ---- */

#ifdef BENCH_WITH_LINEUP
static void *api_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ksteps; i++) {
        lu_sched_access_begin(LU_SCHED_K_RMW, &counter, 1);
        long old = atomic_fetch_add(&counter, 1);
        lu_sched_access_end(&counter, old + 1 != old);
    }
    return NULL;
}

static lu_sched_fn worker_fn;

static void *main_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < nthreads; i++)
        if (lu_sched_spawn(worker_fn, NULL) < 0)
            lu_sched_abort("spawn failed");
    lu_sched_join_all(2);
    return NULL;
}

static int run_sched(bool tsan, bool dfs, int bound, uint64_t n, uint64_t seed)
{
    worker_fn = tsan ? bench_tsan_worker : api_worker;
    struct lu_sched_trace *tr = malloc(lu_sched_trace_size(4096));
    if (!tr)
        die("%s", "out of memory");
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = dfs ? LU_SCHED_DFS : LU_SCHED_RANDOM;
    cfg.preemption_bound = bound;
    cfg.seed = seed;
    cfg.trace = tr;
    struct lu_sched_result res;
    struct lu_sched_stats st, sum = {0};
    uint64_t e = 0, rounds = 0, tree = 0;
    /* Timed from the creation of the first scheduler to the destruction of
     * the last, pool thread start-up included. A DFS tree smaller than n is
     * explored again with a fresh scheduler (as lineup's phase 2 does for
     * each bound) until n executions ran. */
    struct usage a = usage_now();
    bool late = false;
    while (e < n && !late) {
        tr->cap = 4096;
        tr->len = 0;
        int err = 0;
        struct lu_sched *s = lu_sched_create(&cfg, &err);
        if (!s)
            die("lu_sched_create: %s", lu_sched_strerror(err));
        rounds++;
        uint64_t here = 0;
        while (e < n && lu_sched_more(s)) {
            if (max_seconds > 0 && now() - a.t > max_seconds) {
                late = true;
                break;
            }
            if (tsan)
                bench_tsan_set(ksteps); /* resets the counter too */
            else
                atomic_store(&counter, 0);
            int rc = lu_sched_run(s, main_thread, NULL, &res);
            if (rc != 0)
                die("lu_sched_run: %s", lu_sched_strerror(rc));
            if (res.outcome != LU_SCHED_OUT_COMPLETE)
                die("execution ended: %s", lu_sched_outcome_name(res.outcome));
            long got = tsan ? bench_tsan_get() : atomic_load(&counter);
            if (got != (long)nthreads * ksteps)
                die("%s", "an execution lost an increment");
            e++;
            here++;
        }
        if (!late && !lu_sched_more(s)) {
            tree = here;
            if (explore_once)
                late = true;
        }
        lu_sched_stats(s, &st);
        sum.executions += st.executions;
        sum.points += st.points;
        sum.switches += st.switches;
        lu_sched_destroy(s);
    }
    struct usage b = usage_now();
    double dt = b.t - a.t, m = (double)sum.executions;
    printf(
        "mode=%s threads=%d steps=%d strategy=%s bound=%d executions=%llu dfs_tree=%llu explorations=%llu "
        "exec_per_s=%.0f points_per_exec=%.1f switches_per_exec=%.1f points_per_s=%.0f switches_per_s=%.0f",
        tsan ? "tsan" : "api", nthreads, ksteps, dfs ? "dfs" : "random", bound,
        (unsigned long long)sum.executions, (unsigned long long)tree, (unsigned long long)rounds, m / dt,
        (double)sum.points / m, (double)sum.switches / m, (double)sum.points / dt, (double)sum.switches / dt);
    print_usage_delta(a, b, sum.executions);
    printf(" watchdog=\"%s\"\n", lu_sched_watchdog_name());
    free(tr);
    return 0;
}
#endif

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_sched MODE [-t THREADS] [-k STEPS] [-s dfs|random] [-p BOUND] [-n EXECUTIONS] [-S "
            "SEED] [-T SECONDS] [-x]\n"
            "  MODE: api | tsan (lineup build), native | pingpong-futex | pingpong-spin | pingpong-ucontext\n"
            "  defaults: -t 3 -k 10 -s dfs -p 2 (random: -1) -n 10000 -S 1; -T stops a run\n"
            "  early after SECONDS of wall time (0: never), for loaded machines; -x: DFS explores its tree\n"
            "  once, even if that is fewer than -n executions\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    bool dfs = true;
    int bound = 2;
    bool bound_set = false;
    uint64_t n = 10000, seed = 1;
    int c;
    optind = 2;
    while ((c = getopt(argc, argv, "t:k:s:p:n:S:T:x")) != -1) {
        switch (c) {
        case 't':
            nthreads = atoi(optarg);
            break;
        case 'k':
            ksteps = atoi(optarg);
            break;
        case 's':
            if (strcmp(optarg, "dfs") == 0)
                dfs = true;
            else if (strcmp(optarg, "random") == 0)
                dfs = false;
            else
                usage();
            break;
        case 'p':
            bound = atoi(optarg);
            bound_set = true;
            break;
        case 'n':
            n = strtoull(optarg, NULL, 10);
            break;
        case 'S':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'T':
            max_seconds = atof(optarg);
            break;
        case 'x':
            explore_once = true;
            break;
        default:
            usage();
        }
    }
    if (nthreads < 1 || nthreads > 32 || ksteps < 0 || n == 0)
        usage();
    if (!dfs && !bound_set)
        bound = -1;
    (void)seed;
    (void)bound;
    if (strcmp(mode, "native") == 0)
        return run_native(n);
    if (strncmp(mode, "pingpong-", 9) == 0)
        return run_pingpong(mode + 9, n);
#ifdef BENCH_WITH_LINEUP
    if (strcmp(mode, "api") == 0)
        return run_sched(false, dfs, bound, n, seed);
    if (strcmp(mode, "tsan") == 0)
        return run_sched(true, dfs, bound, n, seed);
#endif
    fprintf(stderr, "bench_sched: mode %s is not available in this build\n", mode);
    return 2;
}
