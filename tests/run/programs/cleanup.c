/*
 * pthread_cleanup_push handlers run when a thread calls pthread_exit (no
 * cancellation involved), innermost first, and the exit value reaches the
 * join; pthread_cleanup_pop(1) runs one, pop(0) does not. The workers exit
 * while holding the mutex their outer handler releases: without the
 * handlers the second worker would block for ever. With -DBUG that handler
 * forgets the unlock: a real deadlock.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int order, inner_at, outer_at, popped;

static void release(void *arg)
{
    atomic_store(&outer_at, atomic_fetch_add(&order, 1) + 1);
#ifndef BUG
    pthread_mutex_unlock(arg);
#else
    (void)arg;
#endif
}

static void note(void *arg)
{
    atomic_store((atomic_int *)arg, atomic_fetch_add(&order, 1) + 1);
}

static void leave(intptr_t v)
{
    pthread_exit((void *)v);
}

static void *worker(void *arg)
{
    pthread_mutex_lock(&m);
    pthread_cleanup_push(release, &m);
    pthread_cleanup_push(note, &popped);
    pthread_cleanup_pop(0); /* removed, not run */
    pthread_cleanup_push(note, &inner_at);
    if (arg)
        leave((intptr_t)arg); /* from a callee: both handlers run */
    pthread_cleanup_pop(1);
    pthread_cleanup_pop(1);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (intptr_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 7));
    void *r0, *r1;
    pthread_join(t[0], &r0);
    pthread_join(t[1], &r1);
    assert(r0 == (void *)7 && r1 == (void *)8);
    assert(atomic_load(&popped) == 0);
    /* the last thread to exit ran its inner handler, then its outer one */
    assert(atomic_load(&inner_at) == 3 && atomic_load(&outer_at) == 4);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
