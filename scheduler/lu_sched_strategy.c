/*
 * Randomized strategies: PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte,
 * ASPLOS 2010) and POS (Yuan, Yang, Gu, CAV 2018).
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

void lu__strat_begin(struct lu_sched *s)
{
    s->strat.steps = 0;
}

/* Placeholder until the strategies land: the lowest allowed thread. */
int lu__strat_pick(struct lu_sched *s, struct lu__thread *cur, uint64_t allowed)
{
    (void)s;
    (void)cur;
    return __builtin_ctzll(allowed);
}

void lu__strat_executed(struct lu_sched *s, int chosen)
{
    (void)chosen;
    s->strat.steps++;
}
