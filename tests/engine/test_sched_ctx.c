/*
 * What the user-space context switches of the engine must preserve: every
 * controlled thread keeps its own thread-local storage, errno,
 * pthread_self(), stack and floating-point control state across switches,
 * even though all of them run on one kernel thread; with one TLS shared by
 * all (lu_sched_config.tls), everything but the thread-local variables,
 * and the hooks' values set before a point and read after it, with the
 * same search as per-thread TLS; this program has thread-local variables
 * of its own, so AUTO keeps them per thread; deep stacks work;
 * threads abandoned in a stuck execution do not disturb the next one; the
 * pool serves many threads and many executions.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lu_test.h"
#include "lu_test_sched.h"

#define NT 4

static _Atomic int shared;
static __thread int tls_counter;
static __thread char tls_buf[64];
/* declared with lu_sched_tls_keep: each thread's own under a shared TLS too */
static __thread int tls_kept __attribute__((tls_model("initial-exec")));

struct seen {
    pthread_t self;
    uintptr_t tls_addr;
    int kept_seen;
    int mo_seen;
    uintptr_t pc_seen;
    int tls_after;
    int errno_after;
    uintptr_t stack;
    pid_t kernel_tid;
    int round_after;
    char buf[64];
};
static struct seen seen[NT];
static pid_t controller_tid;

/* The kernel's thread id, asked without the C library: lineup's syscall()
 * and gettid() give each controlled thread an id of its own. */
static pid_t kernel_tid(void)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_gettid) : "rcx", "r11", "memory");
    return (pid_t)r;
}

static void point(void)
{
    lu_sched_access_begin(LU_SCHED_K_RMW, &shared, 1);
    atomic_fetch_add(&shared, 1);
    lu_sched_access_end(&shared, true);
}

static void *identity_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char local;
    tls_counter = 0;
    snprintf(tls_buf, sizeof tls_buf, "thread %d", id);
    fesetround(id % 2 ? FE_UPWARD : FE_TONEAREST);
    seen[id].mo_seen = seen[id].pc_seen = seen[id].kept_seen = 0;
    for (int i = 0; i < 5; i++) {
        tls_counter += id + 1;
        errno = 100 + id;
        /* what an instrumented access sets before its point and the
         * scheduler reads after it */
        lu_sched_pc = 0x1000 + (uintptr_t)id;
        LU_SCHED_SET_MO(id % 5);
        tls_kept = 1000 + id;
        lu_sched_access_begin(LU_SCHED_K_RMW, &shared, 1); /* others run here */
        seen[id].mo_seen += lu_sched_mo != id % 5 + 1;
        seen[id].pc_seen += lu_sched_pc != 0x1000 + (uintptr_t)id;
        seen[id].kept_seen += tls_kept != 1000 + id;
        atomic_fetch_add(&shared, 1);
        lu_sched_access_end(&shared, true);
    }
    seen[id].tls_addr = (uintptr_t)&tls_counter;
    seen[id].self = pthread_self();
    seen[id].tls_after = tls_counter;
    seen[id].errno_after = errno;
    seen[id].stack = (uintptr_t)&local;
    seen[id].kernel_tid = kernel_tid();
    seen[id].round_after = fegetround();
    memcpy(seen[id].buf, tls_buf, sizeof tls_buf);
    fesetround(FE_TONEAREST);
    return NULL;
}

static void *identity_main(void *arg)
{
    (void)arg;
    for (int i = 1; i < NT; i++)
        lu_sched_spawn(identity_worker, (void *)(intptr_t)i);
    identity_worker((void *)0);
    lu_sched_join_all(2);
    return NULL;
}

static int tls_mode; /* enum lu_sched_tls of the schedulers new_sched makes */

static struct lu_sched *new_sched(enum lu_sched_strategy st, int bound, struct lu_sched_trace **tr)
{
    *tr = lu_test_trace(1 << 16);
    struct lu_sched_config cfg = lu_test_config(st, bound, *tr);
    cfg.seed = 7;
    cfg.tls = tls_mode;
    return lu_test_sched(&cfg);
}

static const char *tls_name(int mode)
{
    return mode == LU_SCHED_TLS_SHARED ? "shared TLS"
           : mode == LU_SCHED_TLS_AUTO ? "auto TLS"
                                       : "per-thread TLS";
}

static void test_identity(int mode)
{
    struct lu_sched_trace *tr;
    tls_mode = mode;
    struct lu_sched *s = new_sched(LU_SCHED_RANDOM, -1, &tr);
    bool shared_tls = mode == LU_SCHED_TLS_SHARED;
    struct lu_sched_result res;
    int bad = 0;
    uint64_t switches = 0;
    for (int run = 0; run < 200; run++) {
        memset(seen, 0, sizeof seen);
        CHECK(lu_sched_run(s, identity_main, NULL, &res) == 0, "run");
        if (res.outcome != LU_SCHED_OUT_COMPLETE) {
            bad++;
            continue;
        }
        for (int i = 0; i < NT; i++) {
            char want[64];
            snprintf(want, sizeof want, "thread %d", i);
            if ((!shared_tls && (seen[i].tls_after != 5 * (i + 1) || strcmp(seen[i].buf, want))) ||
                seen[i].errno_after != 100 + i || seen[i].kernel_tid != controller_tid || seen[i].mo_seen ||
                seen[i].pc_seen || seen[i].kept_seen ||
                seen[i].round_after != (i % 2 ? FE_UPWARD : FE_TONEAREST))
                bad++;
            for (int j = 0; j < i; j++) {
                if (pthread_equal(seen[i].self, seen[j].self) || seen[i].stack == seen[j].stack)
                    bad++;
                /* the mode really is what it says */
                if ((seen[i].tls_addr == seen[j].tls_addr) != shared_tls)
                    bad++;
            }
        }
    }
    struct lu_sched_stats st;
    lu_sched_stats(s, &st);
    switches = st.switches;
    CHECK(bad == 0,
          "%s: its TLS, errno, the hooks' pc and memory order, kept variables, pthread_self, stacks and "
          "rounding mode "
          "survive switches (%d bad)",
          tls_name(mode), bad);
    CHECK(lu_sched_tls_shared(s) == shared_tls, "%s: the scheduler says it %s the TLS", tls_name(mode),
          shared_tls ? "shares" : "does not share");
    CHECK(switches > 200 * 4, "the random walk really switched threads (%llu switches)",
          (unsigned long long)switches);
    CHECK(!pthread_equal(seen[0].self, pthread_self()), "controlled threads are not the controller");
    CHECK(fegetround() == FE_TONEAREST, "the controller's rounding mode is its own");
    lu_sched_destroy(s);
    free(tr);
}

/* ---- deep stacks ---- */

static int recurse(int n)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    if (n == 0)
        return pad[0];
    return recurse(n - 1) + pad[0] - (char)n;
}

static int deep_result;

static void *deep_worker(void *arg)
{
    (void)arg;
    point();
    deep_result = recurse(4000); /* ~4 MB of stack */
    point();
    return NULL;
}

static void *deep_main(void *arg)
{
    (void)arg;
    lu_sched_spawn(deep_worker, NULL);
    point();
    lu_sched_join_all(2);
    return NULL;
}

static void test_deep_stack(void)
{
    struct lu_sched_trace *tr;
    struct lu_sched *s = new_sched(LU_SCHED_DFS, 2, &tr);
    struct lu_sched_result res;
    int n = 0, ok = 0;
    while (lu_sched_more(s) && lu_sched_run(s, deep_main, NULL, &res) == 0) {
        n++;
        ok += res.outcome == LU_SCHED_OUT_COMPLETE && deep_result == 0;
    }
    CHECK(n > 1 && ok == n, "4 MB of recursion on a controlled thread's stack (%d of %d executions)", ok, n);
    lu_sched_destroy(s);
    free(tr);
}

/* ---- abandoned threads ---- */

static pthread_mutex_t ma, mb;
static int stuck_round;

static void *lock_ab(void *arg)
{
    pthread_mutex_t *first = arg == NULL ? &ma : &mb, *second = arg == NULL ? &mb : &ma;
    tls_counter = 1000; /* must not leak into the next execution's fresh start */
    lu_sched_mutex_lock(first, 1);
    lu_sched_mutex_lock(second, 1);
    lu_sched_mutex_unlock(second, 1);
    lu_sched_mutex_unlock(first, 1);
    return NULL;
}

static void *deadlock_main(void *arg)
{
    (void)arg;
    lu_sched_mutex_init(&ma, PTHREAD_MUTEX_NORMAL);
    lu_sched_mutex_init(&mb, PTHREAD_MUTEX_NORMAL);
    lu_sched_spawn(lock_ab, NULL);
    lu_sched_spawn(lock_ab, (void *)1);
    lu_sched_join_all(2);
    stuck_round++;
    return NULL;
}

static void test_abandoned(void)
{
    struct lu_sched_trace *tr;
    struct lu_sched *s = new_sched(LU_SCHED_DFS, -1, &tr);
    struct lu_sched_result res;
    int deadlocks = 0, complete = 0, other = 0;
    stuck_round = 0;
    while (lu_sched_more(s) && lu_sched_run(s, deadlock_main, NULL, &res) == 0) {
        if (res.outcome == LU_SCHED_OUT_DEADLOCK)
            deadlocks++;
        else if (res.outcome == LU_SCHED_OUT_COMPLETE)
            complete++;
        else
            other++;
    }
    CHECK(deadlocks > 0 && complete > 0 && other == 0,
          "lock-order inversion: deadlocked and complete executions alternate cleanly (%d deadlocks, %d "
          "complete, "
          "%d other)",
          deadlocks, complete, other);
    CHECK(stuck_round == complete, "main finished exactly in the complete executions (%d vs %d)", stuck_round,
          complete);
    lu_sched_destroy(s);
    free(tr);
}

/* ---- many threads, many executions ---- */

static void *tiny(void *arg)
{
    (void)arg;
    point();
    return NULL;
}

static void *many_main(void *arg)
{
    int n = (int)(intptr_t)arg;
    for (int i = 1; i < n; i++)
        if (lu_sched_spawn(tiny, NULL) < 0)
            return (void *)1;
    lu_sched_join_all(2);
    return NULL;
}

static void test_many(void)
{
    struct lu_sched_trace *tr;
    struct lu_sched *s = new_sched(LU_SCHED_RANDOM, -1, &tr);
    struct lu_sched_result res;
    int ok = 0;
    for (int run = 0; run < 50; run++) {
        atomic_store(&shared, 0);
        ok += lu_sched_run(s, many_main, (void *)(intptr_t)LU_SCHED_MAX_THREADS, &res) == 0 &&
              res.outcome == LU_SCHED_OUT_COMPLETE && atomic_load(&shared) == LU_SCHED_MAX_THREADS - 1 &&
              res.nthreads == LU_SCHED_MAX_THREADS;
    }
    CHECK(ok == 50, "%d threads per execution, 50 executions (%d ok)", LU_SCHED_MAX_THREADS, ok);
    lu_sched_destroy(s);
    free(tr);
}

/* ---- parked threads (lu_sched_spawn_parked) ---- */

static int parked_started, parked_prefixes, parked_seen_at_spawn, parked_order[8], parked_n;

static void *parked_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    parked_started++;
    parked_order[parked_n++ & 7] = id;
    point();
    return NULL;
}

/* The same thread, spawned the ordinary way: its first act is the free
 * point the parked one starts at. */
static void *free_first_worker(void *arg)
{
    parked_prefixes++; /* its invisible prefix: run inside lu_sched_spawn */
    lu_sched_point_free(5);
    return parked_worker(arg);
}

static void *parked_main(void *arg)
{
    bool parked = arg != NULL;
    for (int i = 1; i <= 2; i++)
        parked ? lu_sched_spawn_parked(parked_worker, (void *)(intptr_t)i, 5)
               : lu_sched_spawn(free_first_worker, (void *)(intptr_t)i);
    parked_seen_at_spawn = parked_started + parked_prefixes;
    point();
    lu_sched_join_all(2);
    return NULL;
}

/* Every execution's order of first runs, as a number, summed into a set
 * signature; and the DFS's execution count: both must be those of the
 * ordinary spawn, whose threads run to their first free point at once. */
static void parked_search(bool parked, int bound, int *n, uint64_t *sig, int *early)
{
    tls_mode = LU_SCHED_TLS_AUTO;
    struct lu_sched_trace *tr;
    struct lu_sched *s = new_sched(LU_SCHED_DFS, bound, &tr);
    struct lu_sched_result res;
    *n = 0;
    *sig = 0;
    *early = 0;
    while (lu_sched_more(s)) {
        parked_started = parked_prefixes = parked_n = 0;
        parked_seen_at_spawn = -1;
        if (lu_sched_run(s, parked_main, parked ? (void *)1 : NULL, &res) != 0 ||
            res.outcome != LU_SCHED_OUT_COMPLETE)
            break;
        (*n)++;
        *early += parked_seen_at_spawn != 0;
        uint64_t order = 0;
        for (int i = 0; i < parked_n && i < 8; i++)
            order = order * 3 + (uint64_t)parked_order[i];
        *sig += order * order + 1;
    }
    lu_sched_destroy(s);
    free(tr);
}

static void test_parked(void)
{
    for (int bound = 0; bound <= 2; bound++) {
        int n0, n1, early0, early1;
        uint64_t sig0, sig1;
        parked_search(false, bound, &n0, &sig0, &early0);
        parked_search(true, bound, &n1, &sig1, &early1);
        CHECK(early1 == 0 && n1 > 0 && early0 == n0,
              "bound %d: a parked thread runs nothing before it is chosen, an ordinary one its prefix at "
              "once (%d of %d and %d of %d runs)",
              bound, early1, n1, early0, n0);
        CHECK(n0 == n1 && sig0 == sig1,
              "bound %d: parked spawns give the search of spawns that run to a free point (%d and %d "
              "executions)",
              bound, n0, n1);
    }
}

/* ---- one TLS for all: the same search ---- */

static void tls_search(int mode, int bound, int *n, uint64_t *sig)
{
    struct lu_sched_trace *tr;
    tls_mode = mode;
    struct lu_sched *s = new_sched(LU_SCHED_DFS, bound, &tr);
    struct lu_sched_result res;
    *n = 0;
    *sig = 0;
    while (lu_sched_more(s)) {
        memset(seen, 0, sizeof seen);
        parked_started = parked_prefixes = parked_n = 0;
        if (lu_sched_run(s, identity_main, NULL, &res) != 0 || res.outcome != LU_SCHED_OUT_COMPLETE)
            break;
        (*n)++;
        uint64_t h = 1469598103934665603ull;
        for (uint32_t i = 0; i < tr->len; i++)
            h = (h ^ tr->steps[i].chosen) * 1099511628211ull;
        for (int i = 0; i < NT; i++)
            h = (h ^ (uint64_t)seen[i].errno_after) * 1099511628211ull;
        *sig += h;
    }
    lu_sched_destroy(s);
    free(tr);
}

static void test_tls_modes(void)
{
    const char *who = NULL;
    CHECK(lu_sched_tls_owner(&who) == 1 && who && strcmp(who, "the program") == 0,
          "this program's thread-local variables are found (%s)", who ? who : "none");
    for (int bound = 0; bound <= 1; bound++) {
        int n0, n1;
        uint64_t sig0, sig1;
        tls_search(LU_SCHED_TLS_PER_THREAD, bound, &n0, &sig0);
        tls_search(LU_SCHED_TLS_SHARED, bound, &n1, &sig1);
        CHECK(n0 > 1 && n0 == n1 && sig0 == sig1,
              "bound %d: shared TLS runs the search of per-thread TLS, schedules and errno values (%d and %d "
              "executions)",
              bound, n0, n1);
    }
}

int main(void)
{
    controller_tid = kernel_tid();
    CHECK(lu_sched_tls_keep(&tls_kept, sizeof tls_kept) == 0, "a variable to keep per thread is taken");
    CHECK(lu_sched_tls_keep(tls_buf, LU_SCHED_TLS_KEEP_BYTES) == LU_SCHED_EINVAL,
          "more than LU_SCHED_TLS_KEEP_BYTES in all is refused");
    test_identity(LU_SCHED_TLS_AUTO);
    test_identity(LU_SCHED_TLS_PER_THREAD);
    test_identity(LU_SCHED_TLS_SHARED);
    test_tls_modes();
    /* abandoned contexts, deep stacks and the pool with either TLS */
    for (int m = 0; m < 2; m++) {
        tls_mode = m ? LU_SCHED_TLS_SHARED : LU_SCHED_TLS_AUTO;
        test_deep_stack();
        tls_mode = m ? LU_SCHED_TLS_SHARED : LU_SCHED_TLS_AUTO;
        test_abandoned();
        tls_mode = m ? LU_SCHED_TLS_SHARED : LU_SCHED_TLS_AUTO;
        test_many();
    }
    test_parked();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
