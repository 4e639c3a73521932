/*
 * Buggy counter 1 of the Line-Up paper (section 2.2.1): inc() reads and
 * writes the count without a lock, so two concurrent incs can lose one.
 * Built with -DFIXED the increment holds a mutex and the counter is
 * linearizable. volatile makes each access a scheduling point. Built with
 * -DGET_SCALE=10 get() returns ten times the count: the same schedules,
 * other results (a rebuilt harness a replay must tell apart).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdlib.h>

#ifndef GET_SCALE
#define GET_SCALE 1
#endif

struct counter {
    pthread_mutex_t lock;
    volatile int64_t count;
};

static void *create(void)
{
    struct counter *c = calloc(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void destroy(void *o)
{
    struct counter *c = o;
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int64_t inc(void *o, int64_t unused)
{
    struct counter *c = o;
    (void)unused;
#ifdef FIXED
    pthread_mutex_lock(&c->lock);
    c->count = c->count + 1;
    pthread_mutex_unlock(&c->lock);
#else
    c->count = c->count + 1;
#endif
    return 0;
}

static int64_t get(void *o, int64_t unused)
{
    struct counter *c = o;
    (void)unused;
    pthread_mutex_lock(&c->lock);
    int64_t v = c->count;
    pthread_mutex_unlock(&c->lock);
    return v * GET_SCALE;
}

LINEUP_HARNESS(counter, create, destroy, LINEUP_OP(inc, 0), LINEUP_OP(get, 0));
