/*
 * Scheduler set-up shared by the engine tests: a trace buffer, the
 * configuration they start from, and a scheduler, each ending the test
 * binary with a message when the set-up itself fails (out of memory, a
 * configuration the scheduler refuses): that is a broken test, not a
 * finding to count.
 */
#ifndef LU_TEST_SCHED_H
#define LU_TEST_SCHED_H

#include "lu_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace buffer for cap steps (free() it). */
static inline struct lu_sched_trace *lu_test_trace(uint32_t cap)
{
    struct lu_sched_trace *tr = malloc(lu_sched_trace_size(cap));
    if (!tr) {
        printf("out of memory for a trace of %u steps\n", cap);
        exit(2);
    }
    tr->cap = cap;
    tr->len = 0;
    return tr;
}

/* Strategy, preemption bound (-1: none) and trace; everything else zero
 * (the scheduler's defaults). */
static inline struct lu_sched_config lu_test_config(enum lu_sched_strategy st, int bound,
                                                    struct lu_sched_trace *tr)
{
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = st;
    cfg.preemption_bound = bound;
    cfg.trace = tr;
    return cfg;
}

static inline struct lu_sched *lu_test_sched(const struct lu_sched_config *cfg)
{
    int err = 0;
    struct lu_sched *s = lu_sched_create(cfg, &err);
    if (!s) {
        printf("lu_sched_create: %s\n", lu_sched_strerror(err));
        exit(2);
    }
    return s;
}

#endif
