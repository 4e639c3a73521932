/*
 * Golden execution counts of the scheduler, driven through its API (no
 * instrumentation): two threads each doing k atomic increments have C(2k, k)
 * interleavings; with preemption bound c the count is the number of
 * interleavings with at most c + 2 runs. Any change in these numbers is a
 * change in the search and must be deliberate.
 */
#include "lu_sched.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interleavings.h"
#include "lu_test.h"
#include "lu_test_sched.h"

static _Atomic long counter;
static int k_steps;
static int nthreads;

static void atomic_inc(void)
{
    lu_sched_access_begin(LU_SCHED_K_RMW, &counter, 1);
    long old = atomic_fetch_add(&counter, 1);
    lu_sched_access_end(&counter, old + 1 != old);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < k_steps; i++)
        atomic_inc();
    return NULL;
}

static void *main_thread(void *arg)
{
    (void)arg;
    atomic_store(&counter, 0);
    for (int i = 0; i < nthreads; i++)
        lu_sched_spawn(worker, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* A DFS scheduler with this preemption bound, on the one trace buffer. */
static struct lu_sched *dfs_new(int bound)
{
    static struct lu_sched_trace *tr;
    if (!tr)
        tr = lu_test_trace(4096);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, bound, tr);
    return lu_test_sched(&cfg);
}

static uint64_t count_executions(int threads, int k, int bound, long *bad)
{
    k_steps = k;
    nthreads = threads;
    struct lu_sched *s = dfs_new(bound);
    uint64_t n = 0;
    *bad = 0;
    struct lu_sched_result res;
    while (lu_sched_more(s)) {
        if (lu_sched_run(s, main_thread, NULL, &res) != 0)
            break;
        n++;
        if (res.outcome != LU_SCHED_OUT_COMPLETE || atomic_load(&counter) != threads * k)
            (*bad)++;
    }
    lu_sched_destroy(s);
    return n;
}

/* ---- spinning threads chosen at a cost ----
 * A thread that re-reads an unchanged location is spinning and is not
 * chosen while others can run, except by DFS at the cost of a preemption,
 * after which it runs alone until it stops spinning. A bounded wait (look
 * three times, then give up) can so give up while the other thread has not
 * started; a real spin given such a turn is dropped as redundant. */
static _Atomic long flag, gave_up, other;
static long seen;
static bool bounded;

static long spin_rd(_Atomic long *p, uintptr_t pc)
{
    lu_sched_pc = pc; /* one instruction per call site, for spin detection */
    lu_sched_access_begin(LU_SCHED_K_READ, p, 3);
    long v = atomic_load(p);
    lu_sched_access_end(p, false);
    return v;
}

static void spin_wr(_Atomic long *p, long v, uintptr_t pc)
{
    lu_sched_pc = pc;
    lu_sched_access_begin(LU_SCHED_K_WRITE, p, 4);
    long old = atomic_exchange(p, v);
    lu_sched_access_end(p, old != v);
}

static void *waiter(void *arg)
{
    (void)arg;
    if (bounded) {
        for (int i = 0; i < 3; i++)
            if (spin_rd(&flag, 0x100))
                return NULL;
        spin_wr(&gave_up, 1, 0x200);
    } else {
        while (!spin_rd(&flag, 0x100))
            ;
    }
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    seen = spin_rd(&gave_up, 0x300);
    spin_wr(&other, 1, 0x400);
    spin_wr(&other, 2, 0x500);
    spin_wr(&flag, 1, 0x600);
    return NULL;
}

static void *spin_main(void *arg)
{
    (void)arg;
    atomic_store(&flag, 0);
    atomic_store(&gave_up, 0);
    atomic_store(&other, 0);
    seen = -1;
    lu_sched_spawn(waiter, NULL);
    lu_sched_spawn(setter, NULL);
    lu_sched_join_all(2);
    return NULL;
}

struct spin_tally {
    uint64_t executions, complete, early_give_up, redundant, dropped, stalled;
};

static struct spin_tally spin_explore(bool is_bounded, int bound)
{
    bounded = is_bounded;
    struct spin_tally t = {0};
    struct lu_sched *s = dfs_new(bound);
    struct lu_sched_result res;
    while (lu_sched_more(s) && lu_sched_run(s, spin_main, NULL, &res) == 0) {
        if (res.redundant) {
            t.redundant++;
            continue;
        }
        t.executions++;
        t.complete += res.outcome == LU_SCHED_OUT_COMPLETE;
        t.early_give_up += seen == 1;
    }
    struct lu_sched_stats st;
    lu_sched_stats(s, &st);
    t.dropped = st.spin_dropped;
    t.stalled = st.stalled;
    lu_sched_destroy(s);
    return t;
}

/* stats.stalled: which threads stopped between free points, unable to go
 * on. The Line-Up driver skips a bound-0 round on its "nobody but thread
 * 0". Increments never stall; main does, in its join; the waiter does
 * when it spins, which it does in some schedule at every bound. */
static void test_stalled(void)
{
    k_steps = 2;
    nthreads = 3;
    struct lu_sched *s = dfs_new(2);
    struct lu_sched_result res;
    while (lu_sched_more(s) && lu_sched_run(s, main_thread, NULL, &res) == 0)
        ;
    struct lu_sched_stats st;
    lu_sched_stats(s, &st);
    lu_sched_destroy(s);
    CHECK(st.stalled == 1, "increments: stalled threads %#llx, expected main's alone (0x1)",
          (unsigned long long)st.stalled);
    for (int bound = 0; bound <= 2; bound++) {
        struct spin_tally t = spin_explore(false, bound);
        CHECK(t.stalled == 0x3,
              "real spin, bound %d: stalled threads %#llx, expected main and the waiter (0x3)", bound,
              (unsigned long long)t.stalled);
    }
}

static void test_spinners(void)
{
    struct spin_tally t = spin_explore(true, 0);
    CHECK(t.complete == t.executions && t.early_give_up == 0 && t.redundant == 0,
          "bounded wait, bound 0: the waiter gives up only after the setter ran (%llu of %llu early)",
          (unsigned long long)t.early_give_up, (unsigned long long)t.executions);
    t = spin_explore(true, 1);
    CHECK(t.complete == t.executions && t.early_give_up > 0,
          "bounded wait, bound 1: choosing the spinning waiter lets it give up first (%llu of %llu)",
          (unsigned long long)t.early_give_up, (unsigned long long)t.executions);
    /* golden: a change here is a change in the search */
    CHECK(t.executions == 9 && t.redundant == 0,
          "bounded wait, bound 1: %llu executions (expected 9), %llu dropped",
          (unsigned long long)t.executions, (unsigned long long)t.redundant);
    t = spin_explore(false, 2);
    CHECK(t.executions > 0 && t.complete == t.executions,
          "real spin, bound 2: every execution that is not dropped completes (%llu of %llu)",
          (unsigned long long)t.complete, (unsigned long long)t.executions);
    CHECK(
        t.redundant > 0 && t.redundant == t.dropped,
        "real spin, bound 2: the spinner given extra turns keeps spinning and is dropped (%llu, stats %llu)",
        (unsigned long long)t.redundant, (unsigned long long)t.dropped);
}

int main(void)
{
    test_spinners();
    test_stalled();
    long bad;
    for (int k = 1; k <= 5; k++) {
        uint64_t n = count_executions(2, k, -1, &bad);
        CHECK(n == binom(2 * k, k), "2 threads x %d: %llu executions, expected C(%d,%d) = %llu", k,
              (unsigned long long)n, 2 * k, k, (unsigned long long)binom(2 * k, k));
        CHECK(bad == 0, "2 threads x %d: %ld executions lost an increment or did not complete", k, bad);
    }
    for (int c = 0; c <= 2; c++) {
        for (int k = 2; k <= 4; k++) {
            uint64_t n = count_executions(2, k, c, &bad);
            CHECK(n == bounded2(k, c), "2 threads x %d, bound %d: %llu executions, expected %llu", k, c,
                  (unsigned long long)n, (unsigned long long)bounded2(k, c));
        }
    }
    /* literal golden values, in case the formula and the code share a bug */
    CHECK(count_executions(2, 3, 0, &bad) == 2, "2x3 P0");
    CHECK(count_executions(2, 3, 1, &bad) == 6, "2x3 P1");
    CHECK(count_executions(2, 3, 2, &bad) == 14, "2x3 P2");
    CHECK(count_executions(2, 3, -1, &bad) == 20, "2x3 unbounded");
    /* three threads, two steps each: 6! / (2! 2! 2!) = 90 */
    uint64_t n3 = count_executions(3, 2, -1, &bad);
    CHECK(n3 == 90, "3 threads x 2: %llu executions, expected 90", (unsigned long long)n3);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
