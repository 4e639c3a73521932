/*
 * Golden execution counts of the scheduler, driven through its API (no
 * instrumentation): two threads each doing k atomic increments have C(2k, k)
 * interleavings; with preemption bound c the count is the number of
 * interleavings with at most c + 2 runs. Any change in these numbers is a
 * change in the search and must be deliberate.
 */
#include "lu_sched.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_test.h"

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

static uint64_t count_executions(int threads, int k, int bound, long *bad)
{
    k_steps = k;
    nthreads = threads;
    struct lu_sched_trace *tr = malloc(lu_sched_trace_size(4096));
    tr->cap = 4096;
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = LU_SCHED_DFS;
    cfg.preemption_bound = bound;
    cfg.trace = tr;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        printf("lu_sched_create: %s\n", lu_sched_strerror(err));
        exit(1);
    }
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
    free(tr);
    return n;
}

static uint64_t binom(int n, int k)
{
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

/* interleavings of two k-sequences with at most c preemptions: runs r from 2
 * to c + 2, 2 * C(k-1, ceil(r/2)-1) * C(k-1, floor(r/2)-1) each */
static uint64_t bounded2(int k, int c)
{
    uint64_t total = 0;
    for (int r = 2; r <= c + 2 && r <= 2 * k; r++)
        total += 2 * binom(k - 1, (r + 1) / 2 - 1) * binom(k - 1, r / 2 - 1);
    return total;
}

int main(void)
{
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
