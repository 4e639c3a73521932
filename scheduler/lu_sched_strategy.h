/* State of the randomized strategies (PCT, POS), kept inside struct lu_sched. */
#ifndef LU_SCHED_STRATEGY_H
#define LU_SCHED_STRATEGY_H

#include <stdint.h>

struct lu__strat {
    uint64_t prio[64]; /* per thread: PCT priority, POS priority of its pending event */
    uint32_t steps;    /* steps seen in this execution */
    uint32_t max_steps; /* longest execution so far (PCT's k when not configured) */
    uint32_t change[8]; /* PCT: steps at which the running thread's priority drops */
    int nchange;
};

#endif
