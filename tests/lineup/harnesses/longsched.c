/*
 * A lost update after 1500 scheduling points per call: the replay file of
 * its violation has a schedule line of thousands of choices, longer than
 * any other line of the format (tests/lineup/CMakeLists.txt,
 * lineup.replay_long_schedule). The loads read distinct fields, so that
 * they are no spinning.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

#define LU_POINTS 1500

struct counter {
    atomic_long n;
    atomic_long pad[LU_POINTS];
};

static void *create(void)
{
    return calloc(1, sizeof(struct counter));
}

static void destroy(void *o)
{
    free(o);
}

static int64_t inc(void *o, int64_t unused)
{
    struct counter *c = o;
    (void)unused;
    long sum = 0;
    for (int i = 0; i < LU_POINTS; i++)
        sum += atomic_load(&c->pad[i]);
    long v = atomic_load(&c->n) + 1 + sum;
    atomic_store(&c->n, v);
    return v;
}

LINEUP_HARNESS(longsched, create, destroy, LINEUP_OP(inc, 0));
