/*
 * Two operations each start a helper thread, one with a 16 MiB stack
 * (pthread_attr_setstacksize) of which it uses 10 MiB, more than the
 * default 8 MiB. Which helper gets which thread number follows the
 * schedule, so the system thread lineup keeps for a number from an earlier
 * execution may have the smaller stack: a correct harness, it must pass.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define USE (10u << 20)

struct obj {
    atomic_int n;
};

static void *create(void)
{
    return calloc(1, sizeof(struct obj));
}

static void *big_helper(void *arg)
{
    volatile char big[USE];
    memset((char *)big, 1, sizeof big);
    atomic_fetch_add(&((struct obj *)arg)->n, big[USE - 1]);
    return NULL;
}

static void *small_helper(void *arg)
{
    atomic_fetch_add(&((struct obj *)arg)->n, 1);
    return NULL;
}

static int64_t start(void *o, void *(*fn)(void *), size_t stack)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    if (stack)
        pthread_attr_setstacksize(&a, stack);
    pthread_t t;
    int rc = pthread_create(&t, &a, fn, o);
    pthread_attr_destroy(&a);
    if (rc != 0)
        return -1;
    pthread_join(t, NULL);
    return 0;
}

static int64_t run_big(void *o, int64_t unused)
{
    (void)unused;
    return start(o, big_helper, 16u << 20);
}

static int64_t run_small(void *o, int64_t unused)
{
    (void)unused;
    return start(o, small_helper, 0);
}

LINEUP_HARNESS(stacks, create, free, LINEUP_OP(run_big, 0), LINEUP_OP(run_small, 0));
