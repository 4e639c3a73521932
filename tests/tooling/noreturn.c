/* A harness whose inc() forgets to return its result: lineup-cc warns. */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

static void *create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static int64_t inc(void *o, int64_t d)
{
    atomic_fetch_add((atomic_long *)o, d);
}

LINEUP_HARNESS(noreturn, create, free, LINEUP_OP(inc, 1));
