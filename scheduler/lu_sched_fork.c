/*
 * Executions run in forked children (lineup run): the server process keeps
 * the exploration state and never runs an execution; each child runs one
 * on its copy of the scheduler and leaves its schedule in the shared trace.
 * These two calls do on the server the bookkeeping lu_sched_run does before
 * and after an execution that ran in the same process. Partial-order
 * reduction needs nothing here: its state is in a shared mapping, written
 * by the child as it runs and settled by the backtracking that the next
 * lu_sched_fork_prepare does (tests/run/test_fork_por.c).
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

int lu_sched_fork_prepare(struct lu_sched *s, uint64_t n)
{
    if (!lu_sched_more(s))
        return LU_SCHED_EDONE;
    /* Every child starts from the server's copy of the generator: without a
     * seed per execution all of them would draw the same schedule. Mixing
     * keeps nearby (seed, n) pairs unrelated. */
    s->rng = lu__mix(s->cfg.seed ^ lu__mix(n + 0x9e3779b97f4a7c15ULL));
    /* Stacks for as many threads as an execution had so far, mapped here
     * once rather than in every child (an mmap and an mprotect each; S19.3
     * in benchmarks/RESULTS.md). A failure is the child's to meet and
     * report. */
    if (lu__pool_premap(s, s->fork_threads) != 0)
        s->error[0] = 0;
    return 0;
}

void lu_sched_fork_done(struct lu_sched *s)
{
    struct lu_sched_trace *tr = s->cfg.trace;
    lu__executed(s);
    /* the threads this execution had (every one is enabled at some
     * choice, if only at the one after its creation), and its thread
     * choices */
    uint64_t seen = 0;
    uint32_t steps = 0, len = tr->len < tr->cap ? tr->len : tr->cap;
    for (uint32_t i = 0; i < len; i++)
        if (tr->steps[i].kind == LU_SCHED_CHOOSE_THREAD) {
            seen |= tr->steps[i].enabled | 1ULL << tr->steps[i].chosen;
            steps++;
        }
    int had = seen ? 64 - __builtin_clzll(seen) : 1;
    if (had > s->fork_threads)
        s->fork_threads = had;
    switch (s->cfg.strategy) {
    case LU_SCHED_RANDOM:
    case LU_SCHED_PCT:
    case LU_SCHED_POS:
        /* PCT without a configured k learns it from the executions so far,
         * which ran in children: count this one's thread choices here (what
         * the strategy counts in strat.steps), also when it died early. */
        if (steps > s->strat.max_steps)
            s->strat.max_steps = steps;
        break;
    case LU_SCHED_DFS:
    case LU_SCHED_REPLAY:
        break;
    }
}
