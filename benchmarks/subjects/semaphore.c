/*
 * Counting semaphore built from a mutex and a condition variable: post()
 * increments the count and wakes a waiter, wait() blocks while the count is
 * 0 and then decrements it, try_wait() decrements it if it is positive.
 *
 *   correct              linearizable
 *   -DBUG_LOST_WAKEUP    post() signals only when it raises the count from
 *                        0 to 1 (a "no waiter can be waiting otherwise"
 *                        optimization): with two waiters blocked, two posts
 *                        in a row signal once, the first waiter has been
 *                        woken but not yet run when the second post finds
 *                        the count at 1 and signals nobody, and the second
 *                        waiter sleeps forever with the count at 1 (stuck
 *                        wait()). Test: wait() | wait() | post() post().
 *
 * Operations: post() returns 0; wait() returns 1 once it got a unit (it
 * blocks while there is none: serial executions with more waits than posts
 * are stuck, which is specified behaviour); try_wait() returns 1 or 0.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct semaphore {
    pthread_mutex_t m;
    pthread_cond_t nonzero;
    long count;
};

static void *create(void)
{
    struct semaphore *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->m, NULL);
    pthread_cond_init(&s->nonzero, NULL);
    return s;
}

static void destroy(void *obj)
{
    struct semaphore *s = obj;
    pthread_cond_destroy(&s->nonzero);
    pthread_mutex_destroy(&s->m);
    free(s);
}

static int64_t post(void *obj, int64_t unused)
{
    struct semaphore *s = obj;
    (void)unused;
    pthread_mutex_lock(&s->m);
#ifdef BUG_LOST_WAKEUP
    if (s->count++ == 0)
        pthread_cond_signal(&s->nonzero);
#else
    s->count++;
    pthread_cond_signal(&s->nonzero);
#endif
    pthread_mutex_unlock(&s->m);
    return 0;
}

static int64_t wait(void *obj, int64_t unused)
{
    struct semaphore *s = obj;
    (void)unused;
    pthread_mutex_lock(&s->m);
    while (s->count == 0)
        pthread_cond_wait(&s->nonzero, &s->m);
    s->count--;
    pthread_mutex_unlock(&s->m);
    return 1;
}

static int64_t try_wait(void *obj, int64_t unused)
{
    struct semaphore *s = obj;
    (void)unused;
    int64_t got = 0;
    pthread_mutex_lock(&s->m);
    if (s->count > 0) {
        s->count--;
        got = 1;
    }
    pthread_mutex_unlock(&s->m);
    return got;
}

LINEUP_HARNESS(semaphore, create, destroy, LINEUP_OP(post, 0), LINEUP_OP(wait, 0), LINEUP_OP(try_wait, 0));
