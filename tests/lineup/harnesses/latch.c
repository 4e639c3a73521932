/*
 * A countdown latch whose await() spins with lineup_yield() until the count
 * reaches zero. Serially, await() before the count_down()s never returns: a
 * livelock that phase 1 records as a stuck serial history (specified
 * behaviour). Concurrently nothing else can happen, so the check passes.
 * LINEUP_SETUP arms the latch with one count before every test, and
 * LINEUP_TEARDOWN reads the remaining count after every test; its result is
 * part of the history, so a lost count_down() would be a violation.
 * With -DBUGGY_COUNT_DOWN, count_down() decrements with a separate load and
 * store, and two concurrent count_down()s can lose one.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

struct latch {
    atomic_long count;
};

static void *create(void)
{
    return calloc(1, sizeof(struct latch));
}

static int64_t arm(void *o, int64_t n)
{
    struct latch *l = o;
    atomic_fetch_add(&l->count, n);
    return 0;
}

static int64_t count_down(void *o, int64_t unused)
{
    struct latch *l = o;
    (void)unused;
#ifdef BUGGY_COUNT_DOWN
    long c = atomic_load(&l->count);
    if (c > 0)
        atomic_store(&l->count, c - 1);
#else
    long c = atomic_load(&l->count);
    while (c > 0 && !atomic_compare_exchange_weak(&l->count, &c, c - 1))
        ;
#endif
    return 0;
}

static int64_t await(void *o, int64_t unused)
{
    struct latch *l = o;
    (void)unused;
    while (atomic_load(&l->count) > 0)
        lineup_yield();
    return 1;
}

static int64_t remaining(void *o, int64_t unused)
{
    struct latch *l = o;
    (void)unused;
    return atomic_load(&l->count);
}

LINEUP_HARNESS(latch, create, free, LINEUP_OP(count_down, 0), LINEUP_OP(await, 0), LINEUP_OP(remaining, 0));
LINEUP_SETUP(latch, LINEUP_OP(arm, 2));
LINEUP_TEARDOWN(latch, LINEUP_OP(remaining, 0));
