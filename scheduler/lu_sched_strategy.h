/* State of the randomized strategies (PCT, POS), kept inside struct lu_sched. */
#ifndef LU_SCHED_STRATEGY_H
#define LU_SCHED_STRATEGY_H

#include <stdint.h>

/* Deepest PCT bug depth honoured; larger cfg.pct_depth values are clamped. */
#define LU__PCT_MAX_DEPTH 32

struct lu__strat {
    uint64_t prio[64];                      /* per thread: PCT priority, POS priority of its pending event */
    int nseen;                              /* threads 0 .. nseen-1 have a priority in this execution */
    uint32_t steps;                         /* thread choices made in this execution */
    uint32_t max_steps;                     /* longest execution so far (PCT's k when not configured) */
    uint32_t k;                             /* PCT: the k this execution's change points were drawn from */
    uint32_t change[LU__PCT_MAX_DEPTH - 1]; /* PCT: change[i] = step k_(i+1), 0 = none */
    int nchange;
};

#endif
