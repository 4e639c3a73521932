/*
 * Test-and-test-and-set spin lock protecting a counter. acquire spins on a
 * plain load until the lock looks free and then tries to take it with an
 * atomic exchange; release stores 0.
 *
 *   correct               linearizable
 *   -DBUG_TEST_THEN_SET   acquire waits until the flag reads 0 and then
 *                         stores 1: test and set are two steps, two threads
 *                         that both saw 0 are both inside, and their
 *                         increments overwrite each other (lost update: two
 *                         inc() return the same value, or get() misses one).
 *
 * The protected counter: inc() returns the value before the increment, get()
 * the current value. It is read and written with relaxed atomics, not a
 * single atomic increment: the lock is what is under test, and lineup
 * preempts only at atomics and pthread calls, so with a plain int the two
 * accesses of an increment would never be separated.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct counter {
    atomic_int flag;
    atomic_llong count;
};

static void lock(atomic_int *flag)
{
#ifdef BUG_TEST_THEN_SET
    while (atomic_load_explicit(flag, memory_order_acquire) != 0)
        ;
    atomic_store_explicit(flag, 1, memory_order_relaxed);
#else
    while (atomic_exchange_explicit(flag, 1, memory_order_acquire) != 0)
        while (atomic_load_explicit(flag, memory_order_relaxed) != 0)
            ;
#endif
}

static void unlock(atomic_int *flag)
{
    atomic_store_explicit(flag, 0, memory_order_release);
}

static void *create(void)
{
    return calloc(1, sizeof(struct counter));
}

static void destroy(void *obj)
{
    free(obj);
}

static int64_t inc(void *obj, int64_t unused)
{
    struct counter *c = obj;
    (void)unused;
    lock(&c->flag);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    atomic_store_explicit(&c->count, v + 1, memory_order_relaxed);
    unlock(&c->flag);
    return v;
}

static int64_t get(void *obj, int64_t unused)
{
    struct counter *c = obj;
    (void)unused;
    lock(&c->flag);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    unlock(&c->flag);
    return v;
}

LINEUP_HARNESS(tas_lock, create, destroy, LINEUP_OP(inc, 0), LINEUP_OP(get, 0));
