/* With reg_dup_a.c in one shared object: two harnesses named queue. */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

static void *create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static int64_t peek(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((atomic_long *)o);
}

LINEUP_HARNESS(queue, create, free, LINEUP_OP(peek, 0));
