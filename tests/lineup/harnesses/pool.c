/*
 * A pool of 2 connections: a counting semaphore (sem_t) holds the free
 * slots, a pthread_spinlock_t guards the count of idle connections.
 * acquire() waits for a slot and takes an idle connection (returns 1);
 * try_acquire() returns 1, or -1 when no slot is free; release() returns a
 * connection. Returning the idle count itself would not be linearizable: the
 * semaphore and the count change in two steps. With -DBUGGY_POST_FIRST, release() posts
 * the semaphore before it puts the connection back: an acquire can take the
 * slot and find no connection (-99).
 *
 * One of the harnesses written as a new user would (tests/lineup/CMakeLists.txt,
 * "New users' objects").
 */
#include <lineup.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>

struct pool {
    sem_t slots;
    pthread_spinlock_t lock;
    int idle;
};
static void *create(void)
{
    struct pool *p = calloc(1, sizeof *p);
    sem_init(&p->slots, 0, 2);
    pthread_spin_init(&p->lock, PTHREAD_PROCESS_PRIVATE);
    p->idle = 2;
    return p;
}
static void destroy(void *o)
{
    struct pool *p = o;
    sem_destroy(&p->slots);
    pthread_spin_destroy(&p->lock);
    free(p);
}
static int64_t take_idle(struct pool *p)
{
    pthread_spin_lock(&p->lock);
    int r = --p->idle;
    pthread_spin_unlock(&p->lock);
    return r < 0 ? -99 : 1; /* -99: a slot without a connection */
}
static int64_t acquire(void *o, int64_t unused)
{
    struct pool *p = o;
    (void)unused;
    sem_wait(&p->slots);
    return take_idle(p);
}
static int64_t try_acquire(void *o, int64_t unused)
{
    struct pool *p = o;
    (void)unused;
    if (sem_trywait(&p->slots) != 0)
        return -1;
    return take_idle(p);
}
static int64_t release(void *o, int64_t unused)
{
    struct pool *p = o;
    (void)unused;
#ifdef BUGGY_POST_FIRST
    sem_post(&p->slots);
#endif
    pthread_spin_lock(&p->lock);
    ++p->idle;
    pthread_spin_unlock(&p->lock);
#ifndef BUGGY_POST_FIRST
    sem_post(&p->slots);
#endif
    return 0;
}
LINEUP_HARNESS(pool, create, destroy, LINEUP_OP(acquire, 0), LINEUP_OP(try_acquire, 0),
               LINEUP_OP(release, 0));
