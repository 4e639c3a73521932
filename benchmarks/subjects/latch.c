/*
 * Countdown latch: an atomic count armed to 2 (the setup sequence),
 * count_down() decrements it (never below 0), await() blocks on a
 * condition variable until it is 0. The last count_down wakes the waiters
 * under the mutex, so an await that saw a positive count under the mutex is
 * already waiting when the broadcast comes.
 *
 *   correct               linearizable
 *   -DBUG_LOST_WAKEUP     the last count_down() broadcasts without taking
 *                         the mutex: an await() that checked the count
 *                         (still 1) and is about to wait misses the
 *                         broadcast and waits forever although the count is
 *                         0 (stuck await()). Test: await() | count_down()
 *                         count_down().
 *
 * Operations: count_down() returns 0; await() returns 1 (it blocks while the
 * count is positive: serially, an await before the second count_down is
 * stuck, which is specified behaviour); remaining() returns the count. The
 * teardown reads remaining(), so a lost count_down would show as well.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct latch {
    pthread_mutex_t m;
    pthread_cond_t zero;
    atomic_long count;
};

static void *create(void)
{
    struct latch *l = calloc(1, sizeof *l);
    pthread_mutex_init(&l->m, NULL);
    pthread_cond_init(&l->zero, NULL);
    return l;
}

static void destroy(void *obj)
{
    struct latch *l = obj;
    pthread_cond_destroy(&l->zero);
    pthread_mutex_destroy(&l->m);
    free(l);
}

static int64_t arm(void *obj, int64_t n)
{
    struct latch *l = obj;
    atomic_fetch_add(&l->count, n);
    return 0;
}

static int64_t count_down(void *obj, int64_t unused)
{
    struct latch *l = obj;
    (void)unused;
    long c = atomic_load(&l->count);
    while (c > 0 && !atomic_compare_exchange_weak(&l->count, &c, c - 1))
        ;
    if (c == 1) {
#ifdef BUG_LOST_WAKEUP
        pthread_cond_broadcast(&l->zero);
#else
        pthread_mutex_lock(&l->m);
        pthread_cond_broadcast(&l->zero);
        pthread_mutex_unlock(&l->m);
#endif
    }
    return 0;
}

static int64_t await(void *obj, int64_t unused)
{
    struct latch *l = obj;
    (void)unused;
    if (atomic_load(&l->count) == 0)
        return 1;
    pthread_mutex_lock(&l->m);
    while (atomic_load(&l->count) > 0)
        pthread_cond_wait(&l->zero, &l->m);
    pthread_mutex_unlock(&l->m);
    return 1;
}

static int64_t remaining(void *obj, int64_t unused)
{
    struct latch *l = obj;
    (void)unused;
    return atomic_load(&l->count);
}

LINEUP_HARNESS(latch, create, destroy, LINEUP_OP(count_down, 0), LINEUP_OP(await, 0),
               LINEUP_OP(remaining, 0));
LINEUP_SETUP(latch, LINEUP_OP(arm, 2));
LINEUP_TEARDOWN(latch, LINEUP_OP(remaining, 0));
