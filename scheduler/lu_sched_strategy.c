/*
 * Randomized strategies: PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte,
 * ASPLOS 2010) and POS (Yuan, Yang, Gu, CAV 2018). See docs/strategies.md.
 *
 * Both keep one priority per thread and run the highest-priority thread
 * among those lu__choose allows (the preemption bound, spinning and
 * non-preemptible sections are applied before we are asked). All randomness
 * comes from lu__rand, in an order fixed by the execution itself, so a seed
 * determines the schedules; the trace records every choice, so replay needs
 * none of this state.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

/* Initial PCT priorities sit above every change-point priority (1 .. d-1). */
#define LU__PRIO_FLOOR 64u

/* Uniform in [0, n): the high half of a 64x64 product avoids the modulo's
 * bias and a division. */
static uint32_t lu__below(struct lu_sched *s, uint32_t n)
{
    return (uint32_t)(((unsigned __int128)lu__rand(s) * n) >> 64);
}

/* A random priority distinct from every other seen thread's. Independent
 * uniform draws give a uniformly random order of all threads whenever each
 * one is drawn, which is the paper's random permutation even for threads
 * created late. */
static uint64_t lu__fresh_prio(struct lu_sched *s, int self)
{
    for (;;) {
        uint64_t p = LU__PRIO_FLOOR + (lu__rand(s) >> 2);
        bool dup = false;
        for (int i = 0; i < s->strat.nseen; i++)
            if (i != self && s->strat.prio[i] == p)
                dup = true;
        if (!dup)
            return p;
    }
}

/* Threads started since the last call get their priority now, in id order. */
static void lu__see_threads(struct lu_sched *s)
{
    while (s->strat.nseen < s->nthreads) {
        int i = s->strat.nseen;
        s->strat.prio[i] = lu__fresh_prio(s, i);
        s->strat.nseen = i + 1;
    }
}

void lu__strat_begin(struct lu_sched *s)
{
    struct lu__strat *st = &s->strat;
    if (st->steps > st->max_steps)
        st->max_steps = st->steps;
    st->steps = 0;
    st->nseen = 0;
    st->nchange = 0;
    st->k = 0;
    if (s->cfg.strategy != LU_SCHED_PCT)
        return;
    int d = s->cfg.pct_depth > 0 ? s->cfg.pct_depth : 3;
    if (d > LU__PCT_MAX_DEPTH)
        d = LU__PCT_MAX_DEPTH;
    /* k: configured, or the longest execution seen. The first execution of
     * a learning run has no k and so no change points (a depth-1 sample). */
    st->k = s->cfg.pct_steps ? s->cfg.pct_steps : st->max_steps;
    if (!st->k)
        return;
    st->nchange = d - 1;
    for (int i = 0; i < st->nchange; i++)
        st->change[i] = 1 + lu__below(s, st->k);
}

int lu__strat_pick(struct lu_sched *s, struct lu__thread *cur, uint64_t allowed)
{
    (void)cur;
    lu__see_threads(s);
    int best = -1;
    for (uint64_t m = allowed; m; m &= m - 1) {
        int i = __builtin_ctzll(m);
        if (best < 0 || s->strat.prio[i] > s->strat.prio[best])
            best = i;
    }
    return best;
}

static bool lu__is_sync(enum lu_sched_kind k)
{
    return k >= LU_SCHED_K_MUTEX_LOCK && k <= LU_SCHED_K_ONCE_BLOCKED;
}

static bool lu__is_access(enum lu_sched_kind k)
{
    return k == LU_SCHED_K_READ || k == LU_SCHED_K_WRITE || k == LU_SCHED_K_RMW;
}

/* The objects a pending operation touches: its object, and for a waiter
 * on a condition variable the mutex it re-acquires. (A cond wait's own
 * release of the mutex is not seen: its mutex is known only after it ran.) */
static int lu__event_objs(const struct lu__thread *t, const void *o[2])
{
    if (!lu__is_access(t->k) && !lu__is_sync(t->k))
        return 0;
    int n = 0;
    if (t->obj)
        o[n++] = t->obj;
    if ((t->k == LU_SCHED_K_COND_REACQUIRE || t->k == LU_SCHED_K_COND_TIMEDWAIT) && t->obj2)
        o[n++] = t->obj2;
    return n;
}

/* Whether two events' objects (lu__event_objs) include a common one. */
static bool lu__objs_meet(const void *const a[2], int na, const void *const b[2], int nb)
{
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (a[i] == b[j])
                return true;
    return false;
}

void lu__strat_executed(struct lu_sched *s, int chosen)
{
    struct lu__strat *st = &s->strat;
    lu__see_threads(s);
    st->steps++;
    if (s->cfg.strategy == LU_SCHED_PCT) {
        /* the thread that performs step k_i drops to priority i, below
         * every initial priority, from the next choice on */
        for (int i = 0; i < st->nchange; i++)
            if (st->change[i] == st->steps)
                st->prio[chosen] = (uint64_t)(i + 1);
        return;
    }
    /* POS: pending events that race with the one executing now get a fresh
     * priority, and so does the event the chosen thread reaches next */
    const struct lu__thread *e = &s->threads[chosen];
    /* POS's race: the same object, and not two plain reads (a write, a
     * read-modify-write or any synchronization operation conflicts). e's
     * side is worked out once (this runs at every step): an event that
     * touches no object (a call, a return) races with nothing. */
    const void *oe[2];
    int ne = lu__event_objs(e, oe);
    bool e_read = e->k == LU_SCHED_K_READ;
    for (int i = 0; ne && i < s->nthreads; i++) {
        const struct lu__thread *t = &s->threads[i];
        if (i == chosen || t->state != LU__T_RUNNING || (e_read && t->k == LU_SCHED_K_READ))
            continue;
        const void *ot[2];
        int nt = lu__event_objs(t, ot);
        if (lu__objs_meet(ot, nt, oe, ne))
            st->prio[i] = lu__fresh_prio(s, i);
    }
    st->prio[chosen] = lu__fresh_prio(s, chosen);
}
