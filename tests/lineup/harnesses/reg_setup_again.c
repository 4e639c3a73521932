/* With reg_bad.c -DLEGAL_REPEATS in one shared object: a second
 * LINEUP_SETUP for harness reg, which would silently replace the first. */
#include <lineup.h>

#include <stdatomic.h>

static int64_t reg_write_again(void *o, int64_t v)
{
    atomic_store((atomic_long *)o, v);
    return 0;
}

LINEUP_SETUP(reg, LINEUP_OP(reg_write_again, 7));
