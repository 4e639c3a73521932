/*
 * DFS stacks as work items (lu_sched_stack_next, _shallowest, _give): one
 * DFS split into items, given away from the running search's stack between
 * lu_sched_more and its execution and explored each by a scheduler of its
 * own from a frozen prefix, must run exactly the schedules of one DFS that
 * is never split: none lost, none twice. Checked on three threads doing
 * atomic increments, at bounds 0 to 2 and unbounded, giving away every
 * execution and every few, without reduction (with it, an item starts
 * without the sleep sets above it, and runs more).
 */
#include "lu_sched.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_test.h"
#include "lu_test_sched.h"

static _Atomic long counter;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        lu_sched_access_begin(LU_SCHED_K_RMW, &counter, 1);
        atomic_fetch_add(&counter, 1);
        lu_sched_access_end(&counter, true);
    }
    return NULL;
}

static void *main_thread(void *arg)
{
    (void)arg;
    atomic_store(&counter, 0);
    for (int i = 0; i < 3; i++)
        lu_sched_spawn(worker, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* The schedules run: each a string of chosen threads, kept sorted at the end. */
#define MAX_RUNS 20000
#define MAX_LEN 64
static char runs[MAX_RUNS][MAX_LEN];
static unsigned nruns;

static void record(const struct lu_sched_trace *tr)
{
    if (nruns == MAX_RUNS)
        return;
    uint32_t n = tr->len < MAX_LEN - 1 ? tr->len : MAX_LEN - 1;
    for (uint32_t i = 0; i < n; i++)
        runs[nruns][i] = (char)('a' + tr->steps[i].chosen);
    runs[nruns][n] = 0;
    nruns++;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Items given away, explored after the search that gave them. */
#define MAX_ITEMS 4096
static struct lu_sched_step *items[MAX_ITEMS];
static uint32_t item_len[MAX_ITEMS];
static unsigned nitems, refusals;

static bool take(void *arg, const struct lu_sched_step *item, uint32_t n)
{
    unsigned *room = arg;
    if (nitems == MAX_ITEMS || (room && !(*room)--)) {
        refusals++;
        return false;
    }
    items[nitems] = malloc(n * sizeof *item);
    if (!items[nitems])
        exit(2);
    memcpy(items[nitems], item, n * sizeof *item);
    item_len[nitems++] = n;
    return true;
}

static struct lu_sched_trace *tr;

/* One DFS below prefix g[0..len) (frozen; none when len is 0), giving away
 * every `every` executions (0: never), at most `room` items each time
 * (NULL: no limit); then the item's own steps, deepest first. */
static void explore(struct lu_sched_step *g, uint32_t len, int bound, unsigned every, const unsigned *room)
{
    uint32_t base = len;
    for (;;) {
        struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, bound, tr);
        if (len) {
            cfg.replay = g;
            cfg.replay_len = cfg.frozen_len = len;
        }
        struct lu_sched *s = lu_test_sched(&cfg);
        unsigned ran = 0;
        while (lu_sched_more(s)) {
            if (every && ran && ran % every == 0) {
                unsigned r = room ? *room : 0;
                /* the item's own steps first: the largest subtrees */
                if (!lu_sched_stack_give(g, len, base, bound, LU_SCHED_BOUND_PREEMPTIONS, take,
                                         room ? &r : NULL))
                    lu_sched_stack_give(tr->steps, tr->len, len, bound, LU_SCHED_BOUND_PREEMPTIONS, take,
                                        room ? &r : NULL);
            }
            struct lu_sched_result res;
            if (lu_sched_run(s, main_thread, NULL, &res) != 0)
                exit(2);
            CHECK(res.outcome == LU_SCHED_OUT_COMPLETE && atomic_load(&counter) == 6,
                  "an execution went wrong");
            record(tr);
            ran++;
        }
        lu_sched_destroy(s);
        if (!len || !lu_sched_stack_next(g, &len, base, bound, LU_SCHED_BOUND_PREEMPTIONS, NULL))
            return;
    }
}

/* Runs the split search; returns the sorted schedules' count. */
static unsigned split_search(int bound, unsigned every, const unsigned *room)
{
    nruns = nitems = 0;
    explore(NULL, 0, bound, every, room);
    /* items given by items are explored too (appended as they come) */
    for (unsigned i = 0; i < nitems; i++) {
        struct lu_sched_step *g = malloc(tr->cap * sizeof *g);
        if (!g)
            exit(2);
        memcpy(g, items[i], item_len[i] * sizeof *g);
        explore(g, item_len[i], bound, every, room);
        free(g);
    }
    for (unsigned i = 0; i < nitems; i++)
        free(items[i]);
    qsort(runs, nruns, sizeof runs[0], cmp);
    return nruns;
}

int main(void)
{
    static char whole[MAX_RUNS][MAX_LEN];
    tr = lu_test_trace(4096);
    int bounds[] = {0, 1, 2, -1};
    unsigned one = 1, gave_total = 0, room_refusals = 0;
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        unsigned n = split_search(bounds[b], 0, NULL);
        CHECK(nitems == 0, "bound %d: items given without asking", bounds[b]);
        CHECK(n > 1 && n < MAX_RUNS, "bound %d: %u executions", bounds[b], n);
        memcpy(whole, runs, sizeof runs[0] * n);
        for (unsigned i = 1; i < n; i++)
            CHECK(strcmp(whole[i - 1], whole[i]) != 0, "bound %d: one DFS ran %s twice", bounds[b], whole[i]);
        struct {
            unsigned every;
            const unsigned *room;
        } splits[] = {{1, NULL}, {3, NULL}, {1, &one}, {7, &one}};
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            refusals = 0;
            unsigned m = split_search(bounds[b], splits[k].every, splits[k].room);
            gave_total += nitems;
            CHECK(nitems > 0 || n <= splits[k].every, "bound %d, every %u: nothing was given away", bounds[b],
                  splits[k].every);
            if (splits[k].room)
                room_refusals += refusals;
            CHECK(m == n, "bound %d, every %u%s: %u executions split, %u whole", bounds[b], splits[k].every,
                  splits[k].room ? ", one item at a time" : "", m, n);
            unsigned diff = 0;
            for (unsigned i = 0; i < n && i < m; i++)
                diff += strcmp(whole[i], runs[i]) != 0;
            CHECK(diff == 0, "bound %d, every %u: %u schedules differ from one DFS's", bounds[b],
                  splits[k].every, diff);
        }
    }
    CHECK(room_refusals > 0, "the one-item limit never refused an item");
    /* the bound's cut: an alternative over the bound is neither next nor given */
    struct lu_sched_step g[2];
    memset(g, 0, sizeof g);
    g[0].kind = g[1].kind = LU_SCHED_CHOOSE_THREAD;
    g[0].enabled = g[1].enabled = 0x3;
    g[0].done = g[1].done = 0x1;
    g[0].flags = g[1].flags = LU_SCHED_STEP_PREEMPTIBLE;
    g[0].prev = g[1].prev = 0;
    g[0].preempts = g[1].preempts = 0;
    CHECK(lu_sched_stack_shallowest(g, 2, 0, 0, LU_SCHED_BOUND_PREEMPTIONS) == -1,
          "an alternative that costs a preemption is within bound 0");
    CHECK(lu_sched_stack_shallowest(g, 2, 0, 1, LU_SCHED_BOUND_PREEMPTIONS) == 0,
          "the shallowest is not step 0");
    CHECK(lu_sched_stack_shallowest(g, 2, 1, 1, LU_SCHED_BOUND_PREEMPTIONS) == 1, "base 1 is not respected");
    uint64_t pruned = 0;
    uint32_t len = 2;
    CHECK(!lu_sched_stack_next(g, &len, 0, 0, LU_SCHED_BOUND_PREEMPTIONS, &pruned) && pruned == 2,
          "bound 0: %llu pruned, expected 2", (unsigned long long)pruned);
    printf("%d passed, %d failed (%u items given in all)\n", passes, failures, gave_total);
    free(tr);
    return failures ? 1 : 0;
}
