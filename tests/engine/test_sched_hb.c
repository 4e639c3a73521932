/*
 * Happens-before vector clocks kept by the scheduler for a data-race
 * detector: a mutex handoff, an atomic store seen by a load and a join order
 * the threads; two threads that never synchronize stay unordered. Checked in
 * every execution of an exhaustive DFS. With config.no_clocks (the Line-Up
 * driver's setting) the clocks order nothing and the search is the same.
 */
#include "lu_sched.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_test.h"
#include "lu_test_sched.h"

static int scenario;
static char mutex_obj[64];
static _Atomic int flag;
static _Atomic int other;
static uint32_t t1_clock_at_release;
static uint32_t t2_view_of_t1;
static int t2_saw_release;
static uint32_t main_view[3];

static void *t1(void *arg)
{
    (void)arg;
    if (scenario == 0) {
        lu_sched_mutex_lock(mutex_obj, 1);
        t1_clock_at_release = lu_sched_clock();
        lu_sched_mutex_unlock(mutex_obj, 1);
    } else if (scenario == 1) {
        t1_clock_at_release = lu_sched_clock();
        lu_sched_access_begin(LU_SCHED_K_WRITE, &flag, 1);
        atomic_store(&flag, 1);
        lu_sched_access_end(&flag, true);
    } else {
        lu_sched_access_begin(LU_SCHED_K_WRITE, &other, 1);
        atomic_store(&other, 1);
        lu_sched_access_end(&other, true);
    }
    return NULL;
}

static void *t2(void *arg)
{
    (void)arg;
    if (scenario == 0) {
        lu_sched_mutex_lock(mutex_obj, 1);
        t2_saw_release = t1_clock_at_release != 0;
        lu_sched_mutex_unlock(mutex_obj, 1);
    } else if (scenario == 1) {
        lu_sched_access_begin(LU_SCHED_K_READ, &flag, 1);
        t2_saw_release = atomic_load(&flag);
        lu_sched_access_end(&flag, false);
    } else {
        lu_sched_access_begin(LU_SCHED_K_READ, &flag, 1);
        (void)atomic_load(&flag);
        lu_sched_access_end(&flag, false);
    }
    uint32_t vc[4] = {0};
    lu_sched_vc(lu_sched_self(), vc, 4);
    t2_view_of_t1 = vc[1];
    return NULL;
}

static void *main_thread(void *arg)
{
    (void)arg;
    atomic_store(&flag, 0);
    atomic_store(&other, 0);
    t1_clock_at_release = 0;
    t2_saw_release = 0;
    lu_sched_mutex_init(mutex_obj, 0);
    lu_sched_spawn(t1, NULL);
    lu_sched_spawn(t2, NULL);
    lu_sched_join_all(2);
    lu_sched_vc(0, main_view, 3);
    return NULL;
}

/* Returns the executions explored. */
static int run(int which, bool no_clocks)
{
    scenario = which;
    struct lu_sched_trace *tr = lu_test_trace(1024);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, -1, tr);
    cfg.no_clocks = no_clocks;
    struct lu_sched *s = lu_test_sched(&cfg);
    struct lu_sched_result res;
    int execs = 0, ordered = 0;
    while (lu_sched_more(s) && lu_sched_run(s, main_thread, NULL, &res) == 0) {
        execs++;
        CHECK(res.outcome == LU_SCHED_OUT_COMPLETE, "scenario %d: %s", which,
              lu_sched_outcome_name(res.outcome));
        if (no_clocks) {
            if (t2_saw_release)
                ordered++;
            CHECK(t2_view_of_t1 == 0 && main_view[1] == 0 && main_view[2] == 0,
                  "scenario %d without clocks: t2 sees t1 at %u, main sees %u %u", which, t2_view_of_t1,
                  main_view[1], main_view[2]);
        } else if (which == 2) {
            CHECK(t2_view_of_t1 == 0, "unsynchronized threads ordered: t2 sees t1 at %u", t2_view_of_t1);
        } else if (t2_saw_release) {
            ordered++;
            CHECK(t2_view_of_t1 >= t1_clock_at_release,
                  "scenario %d: t2 synchronized with t1 but its clock of t1 is %u < %u", which, t2_view_of_t1,
                  t1_clock_at_release);
        }
        if (!no_clocks)
            CHECK(main_view[1] >= 1 && main_view[2] >= 1, "join_all did not order the threads before main");
    }
    CHECK(execs >= 2, "scenario %d explored %d executions", which, execs);
    if (which != 2)
        CHECK(ordered >= 1, "scenario %d never synchronized", which);
    lu_sched_destroy(s);
    free(tr);
    return execs;
}

int main(void)
{
    for (int w = 0; w < 3; w++) {
        /* 0: mutex; 1: atomic store -> load; 2: no synchronization between
         * t1 and t2 */
        int with = run(w, false), without = run(w, true);
        CHECK(with == without, "scenario %d: %d executions with clocks, %d without", w, with, without);
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
