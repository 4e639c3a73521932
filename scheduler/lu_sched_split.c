/*
 * DFS stacks as work items, for callers that split one search among
 * processes or restart it (parallel explorers of one tree, an explorer
 * restarted in a new process): the scheduler's own backtracking rule
 * applied to a saved stack, so that an item explored in pieces runs the
 * executions one DFS would.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

/* Makes alternative a the choice at step i, with its cost and preemption
 * flag (done is the caller's). */
static void lu__take(struct lu_sched_step *g, uint32_t i, int a, int bound_kind)
{
    struct lu_sched_step *st = &g[i];
    uint16_t base = i ? g[i - 1].preempts : 0;
    unsigned cost = lu__step_cost(bound_kind, st, a);
    bool pre = st->kind == LU_SCHED_CHOOSE_THREAD && (st->flags & LU_SCHED_STEP_PREEMPTIBLE) && a != st->prev;
    st->chosen = (uint8_t)a;
    st->flags = (uint8_t)((st->flags & ~LU_SCHED_STEP_PREEMPT) | (pre ? LU_SCHED_STEP_PREEMPT : 0));
    st->preempts = (uint16_t)(base + cost);
}

/* Costs come from lu__step_cost, DFS's own rule: a difference would
 * show as different execution counts with restarts or parallel explorers,
 * which the lineup.explorers, run.jobs and engine.sched_split tests compare. */
static bool lu__within(const struct lu_sched_step *g, uint32_t i, int a, int bound, int bound_kind)
{
    unsigned b = i ? g[i - 1].preempts : 0;
    return bound < 0 || b + lu__step_cost(bound_kind, &g[i], a) <= (unsigned)bound;
}

bool lu_sched_stack_next(struct lu_sched_step *g, uint32_t *len, uint32_t base, int bound, int bound_kind,
                         uint64_t *pruned)
{
    for (uint32_t i = *len; i-- > base;) {
        struct lu_sched_step *st = &g[i];
        uint64_t alts = st->enabled & ~st->done;
        while (alts) {
            int a = __builtin_ctzll(alts);
            alts &= alts - 1;
            st->done |= 1ULL << a;
            if (!lu__within(g, i, a, bound, bound_kind)) {
                if (pruned)
                    (*pruned)++;
                continue;
            }
            lu__take(g, i, a, bound_kind);
            *len = i + 1;
            return true;
        }
    }
    return false;
}

int lu_sched_stack_shallowest(const struct lu_sched_step *g, uint32_t len, uint32_t base, int bound,
                              int bound_kind)
{
    for (uint32_t i = base; i < len; i++)
        for (uint64_t alts = g[i].enabled & ~g[i].done; alts; alts &= alts - 1)
            if (lu__within(g, i, __builtin_ctzll(alts), bound, bound_kind))
                return (int)i;
    return -1;
}

unsigned lu_sched_stack_give(struct lu_sched_step *g, uint32_t len, uint32_t base, int bound, int bound_kind,
                             bool (*give)(void *arg, const struct lu_sched_step *item, uint32_t n), void *arg)
{
    int i = lu_sched_stack_shallowest(g, len, base, bound, bound_kind);
    if (i < 0)
        return 0;
    struct lu_sched_step keep = g[i];
    unsigned given = 0;
    for (uint64_t alts = keep.enabled & ~keep.done; alts; alts &= alts - 1) {
        int a = __builtin_ctzll(alts);
        if (!lu__within(g, (uint32_t)i, a, bound, bound_kind))
            continue;
        g[i] = keep;
        lu__take(g, (uint32_t)i, a, bound_kind);
        if (!give(arg, g, (uint32_t)i + 1))
            break;
        keep.done |= 1ULL << a;
        given++;
    }
    g[i] = keep;
    return given;
}
