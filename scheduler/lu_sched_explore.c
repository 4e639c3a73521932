/*
 * Exploration: what the strategy chooses at each scheduling point, and how
 * DFS moves to the next schedule. The handoff mechanics are in lu_sched.c;
 * this file only decides.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

/* ---- choosing ---- */

uint64_t lu__rand(struct lu_sched *s)
{
    /* splitmix64: seeded, reproducible, good enough for schedules */
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static bool lu__randomized(const struct lu_sched *s)
{
    return s->cfg.strategy == LU_SCHED_RANDOM || s->cfg.strategy == LU_SCHED_PCT || s->cfg.strategy == LU_SCHED_POS;
}

static int lu__pick_default(uint64_t cand, int cur, int n)
{
    if (cur >= 0 && (cand >> cur & 1))
        return cur;
    for (int i = 1; i <= n; i++) {
        int j = (cur + i) % n;
        if (cand >> j & 1)
            return j;
    }
    return __builtin_ctzll(cand);
}

static struct lu_sched_step *lu__new_step(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    struct lu_sched_trace *tr = s->cfg.trace;
    if (tr->len >= tr->cap)
        lu__end_execution(t, LU_SCHED_OUT_TOO_LONG, "the execution exceeded the trace capacity");
    return &tr->steps[tr->len];
}

/* What choosing thread a at a step costs against the bound. Preemption
 * bounding: switching away from a thread that could go on and is not at an
 * operation boundary costs 1. Delay bounding (Emmi, Qadeer, Rakamaric,
 * POPL 2011): the deterministic scheduler keeps the current thread, or when
 * it cannot go on takes the next candidate in round-robin order; every
 * candidate skipped on the way to a is a delay. At an operation boundary (and
 * when everyone spins) switching is free under both. A finished thread also
 * sets STEP_FREE, but under delays its round-robin successor is still the
 * deterministic choice: skipping it is a delay, or delay bound 0 would not
 * be a single schedule. It is told apart by prev not being a candidate
 * (a thread at a boundary is always one; when everyone spins there is one
 * candidate, which costs nothing anyway). */
unsigned lu__cost(int bound_kind, uint64_t cand, int prev, uint8_t flags, int a)
{
    if (bound_kind != LU_SCHED_BOUND_DELAYS) {
        if (flags & LU_SCHED_STEP_FREE)
            return 0;
        return (flags & LU_SCHED_STEP_PREEMPTIBLE) && a != prev ? 1 : 0;
    }
    if ((flags & LU_SCHED_STEP_FREE) && (cand >> ((unsigned)prev & 63) & 1))
        return 0;
    /* candidates in the cyclic range [prev, a): bits never reach nthreads,
     * so a cycle over 64 positions is a cycle over the threads */
    unsigned p = (unsigned)prev & 63, q = (unsigned)a & 63;
    uint64_t rot = (cand >> p) | (p ? cand << (64 - p) : 0);
    unsigned dist = (q - p) & 63;
    uint64_t below = dist ? (dist == 64 ? ~0ULL : (1ULL << dist) - 1) : 0;
    return (unsigned)__builtin_popcountll(rot & below);
}

/* Decides the thread that performs its pending operation next; cur is the
 * thread asking (it may be finished). Returns -1 when nobody can run: the
 * execution is then over, complete or stuck, and s->res says which. */
int lu__choose(struct lu_sched *s, struct lu__thread *cur)
{
    uint64_t enabled = 0, spinning = 0;
    struct lu_sched_trace *tr = s->cfg.trace;
    bool cur_live = cur->state == LU__T_RUNNING;

    if (cur_live && cur->atomic_depth > 0) {
        /* a non-preemptible section: only cur may go on */
        if (lu__enabled(s, cur)) {
            enabled = 1ULL << cur->id;
            if (lu__spinning(s, cur))
                spinning = enabled;
        }
    } else {
        for (int i = 0; i < s->nthreads; i++) {
            struct lu__thread *t = &s->threads[i];
            if (t->state != LU__T_RUNNING || !lu__enabled(s, t))
                continue;
            enabled |= 1ULL << i;
            if (lu__spinning(s, t))
                spinning |= 1ULL << i;
        }
    }

    if (!enabled) {
        bool stuck = false;
        for (int i = 0; i < s->nthreads; i++)
            if (s->threads[i].state == LU__T_RUNNING)
                stuck = true;
        s->res->outcome = stuck ? LU_SCHED_OUT_DEADLOCK : LU_SCHED_OUT_COMPLETE;
        return -1;
    }

    uint64_t cand = enabled & ~spinning;
    bool all_spin = cand == 0;
    if (all_spin) {
        /* Everyone who can run is spinning: let them take turns without
         * branching, and call it a livelock if nothing changes for long. */
        if (++s->spin_run > s->cfg.spin_bound) {
            s->res->outcome = LU_SCHED_OUT_LIVELOCK;
            return -1;
        }
        int pick = lu__pick_default(enabled, cur_live ? cur->id : -1, s->nthreads);
        if (cur_live && pick == cur->id && __builtin_popcountll(enabled) > 1)
            pick = lu__pick_default(enabled & ~(1ULL << cur->id), cur->id, s->nthreads);
        cand = 1ULL << pick;
    } else {
        s->spin_run = 0;
    }

    bool cur_spin = cur_live && (spinning >> cur->id & 1);
    bool preemptible = cur_live && (enabled >> cur->id & 1) && cur->k != LU_SCHED_K_FREE && !cur_spin &&
                       !all_spin;
    uint16_t base = tr->len ? tr->steps[tr->len - 1].preempts : 0;
    int bound = s->cfg.preemption_bound;
    struct lu_sched_step *st = lu__new_step(cur);
    uint8_t flags = (uint8_t)((preemptible ? LU_SCHED_STEP_PREEMPTIBLE : 0) | (cur_spin ? LU_SCHED_STEP_SPIN : 0) |
                              ((!cur_live || cur->k == LU_SCHED_K_FREE || all_spin) ? LU_SCHED_STEP_FREE : 0));
    int chosen;

    if (tr->len < s->replay_len) {
        /* following a recorded prefix: it must fit what we see now */
        bool fits = st->kind == LU_SCHED_CHOOSE_THREAD && (cand >> st->chosen & 1) &&
                    (s->cfg.strategy == LU_SCHED_REPLAY || st->enabled == cand);
        if (!fits) {
            s->res->culprit = cur->id;
            s->res->message = "a replayed schedule reached a different set of runnable threads";
            s->res->outcome = LU_SCHED_OUT_NONDET;
            return -2;
        }
        chosen = st->chosen;
        st->enabled = cand; /* st->done keeps DFS's bookkeeping */
    } else {
        uint64_t allowed = cand;
        if (bound >= 0) {
            /* alternatives that would exceed the bound are not taken */
            uint64_t m = cand;
            while (m) {
                int a = __builtin_ctzll(m);
                m &= m - 1;
                if (base + lu__cost(s->cfg.bound_kind, cand, cur->id, flags, a) > (unsigned)bound)
                    allowed &= ~(1ULL << a);
            }
        }
        LU__ASSERT(allowed); /* the default choice always costs nothing */
        if (__builtin_popcountll(allowed) > 1 && s->cfg.strategy == LU_SCHED_RANDOM) {
            int k = (int)(lu__rand(s) % (uint64_t)__builtin_popcountll(allowed));
            uint64_t m = allowed;
            while (k--)
                m &= m - 1;
            chosen = __builtin_ctzll(m);
        } else if (__builtin_popcountll(allowed) > 1 &&
                   (s->cfg.strategy == LU_SCHED_PCT || s->cfg.strategy == LU_SCHED_POS)) {
            chosen = lu__strat_pick(s, cur, allowed);
            LU__ASSERT(allowed >> chosen & 1);
        } else {
            chosen = lu__pick_default(allowed, cur_live ? cur->id : -1, s->nthreads);
        }
        st->kind = LU_SCHED_CHOOSE_THREAD;
        st->enabled = cand;
        st->done = 1ULL << chosen;
        st->chosen = (uint8_t)chosen;
    }
    /* a replay file stores only the choices: derive the rest again */
    st->prev = (uint8_t)(cur->id);
    unsigned c = lu__cost(s->cfg.bound_kind, cand, cur->id, flags, chosen);
    st->flags = (uint8_t)(flags | (preemptible && chosen != cur->id ? LU_SCHED_STEP_PREEMPT : 0));
    st->preempts = (uint16_t)(base + c);
    if (s->cfg.strategy == LU_SCHED_PCT || s->cfg.strategy == LU_SCHED_POS)
        lu__strat_executed(s, chosen);
    struct lu__thread *ct = &s->threads[chosen];
    st->op = (uint8_t)ct->k;
    st->label = ct->label;
    tr->len++;
    return chosen;
}

int lu__choose_data(struct lu__thread *t, int n)
{
    struct lu_sched *s = t->s;
    struct lu_sched_trace *tr = s->cfg.trace;
    if (n <= 1)
        return 0;
    if (n > 64)
        n = 64;
    uint64_t mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
    uint16_t base = tr->len ? tr->steps[tr->len - 1].preempts : 0;
    struct lu_sched_step *st = lu__new_step(t);
    int chosen;
    if (tr->len < s->replay_len) {
        if (st->kind != LU_SCHED_CHOOSE_DATA || st->chosen >= n ||
            (s->cfg.strategy != LU_SCHED_REPLAY && st->enabled != mask)) {
            s->res->culprit = t->id;
            s->res->message = "a replayed schedule reached a different choice";
            lu__end_execution(t, LU_SCHED_OUT_NONDET, s->res->message);
        }
        chosen = st->chosen;
    } else {
        chosen = lu__randomized(s) ? (int)(lu__rand(s) % (uint64_t)n) : 0;
        st->kind = LU_SCHED_CHOOSE_DATA;
        st->enabled = mask;
        st->done = 1ULL << chosen;
        st->chosen = (uint8_t)chosen;
        st->prev = (uint8_t)t->id;
        st->flags = 0;
        st->preempts = base;
        st->op = (uint8_t)t->k;
        st->label = t->label;
    }
    tr->len++;
    return chosen;
}

/* DFS: flip the deepest choice that still has an unexplored alternative
 * within the preemption bound; the next execution replays up to it. */
void lu__backtrack(struct lu_sched *s)
{
    struct lu_sched_trace *tr = s->cfg.trace;
    int bound = s->cfg.preemption_bound;
    for (int i = (int)tr->len - 1; i >= (int)s->frozen_len; i--) {
        struct lu_sched_step *st = &tr->steps[i];
        uint16_t base = i ? tr->steps[i - 1].preempts : 0;
        uint64_t alts = st->enabled & ~st->done;
        while (alts) {
            int a = __builtin_ctzll(alts);
            alts &= alts - 1;
            st->done |= 1ULL << a;
            unsigned c = st->kind == LU_SCHED_CHOOSE_THREAD
                             ? lu__cost(s->cfg.bound_kind, st->enabled, st->prev, st->flags, a)
                             : 0;
            if (bound >= 0 && base + c > (unsigned)bound) {
                s->stats.pruned++;
                continue;
            }
            bool pre = st->kind == LU_SCHED_CHOOSE_THREAD && (st->flags & LU_SCHED_STEP_PREEMPTIBLE) &&
                       a != st->prev;
            st->chosen = (uint8_t)a;
            st->flags = (uint8_t)((st->flags & ~LU_SCHED_STEP_PREEMPT) | (pre ? LU_SCHED_STEP_PREEMPT : 0));
            st->preempts = (uint16_t)(base + c);
            tr->len = (uint32_t)i + 1;
            s->replay_len = tr->len;
            return;
        }
    }
    s->more = false;
}

