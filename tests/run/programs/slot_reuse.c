/*
 * One stack slot holds one kind of synchronization object, then another
 * (two functions' locals at the same place), without a free in between:
 * the model must take the second for what its initializer made it, not
 * keep the first one's state (until session 31 it kept the first kind).
 *
 * default: a condition variable, then a mutex from its static initializer
 *          that two threads use for exclusion: passes (the stale condition
 *          excluded nobody);
 * SEM:     a semaphore, then that mutex, and with BUG main locks it twice:
 *          a deadlock (was missed, with every schedule said to be explored);
 * RW:      a condition variable, then an rwlock from its static initializer
 *          used for exclusion: passes (was a false deadlock).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

union slot {
    pthread_cond_t c;
    pthread_mutex_t m;
    sem_t s;
    pthread_rwlock_t rw;
    char pad[64];
};

static atomic_int inside;

#ifndef SEM
static pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;

static void *signaller(void *p)
{
    union slot *u = p;
    pthread_mutex_lock(&gm);
    pthread_cond_signal(&u->c);
    pthread_mutex_unlock(&gm);
    return 0;
}
#endif

static void *exclusive(void *p)
{
    union slot *u = p;
#ifdef RW
    pthread_rwlock_wrlock(&u->rw);
#else
    pthread_mutex_lock(&u->m);
#endif
    assert(atomic_fetch_add(&inside, 1) == 0);
    atomic_fetch_sub(&inside, 1);
#ifdef RW
    pthread_rwlock_unlock(&u->rw);
#else
    pthread_mutex_unlock(&u->m);
#endif
    return 0;
}

/* one function called twice from main: the slot is at the same place both
 * times; noinline and volatile keep it there */
__attribute__((noinline)) static void *use_slot(int phase)
{
    volatile union slot u;
    union slot *p = (union slot *)&u;
    if (phase == 0) {
#ifdef SEM
        sem_init(&p->s, 0, 1);
        sem_wait(&p->s);
        sem_post(&p->s);
#else
        pthread_cond_t c = PTHREAD_COND_INITIALIZER;
        p->c = c;
        pthread_t t;
        pthread_create(&t, 0, signaller, p);
        pthread_mutex_lock(&gm);
        struct timespec now = {0, 0};
        pthread_cond_timedwait(&p->c, &gm, &now);
        pthread_mutex_unlock(&gm);
        pthread_join(t, 0);
#endif
        return p;
    }
#ifdef RW
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    p->rw = rw;
#else
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    p->m = m;
#endif
    pthread_t a, b;
    pthread_create(&a, 0, exclusive, p);
    pthread_create(&b, 0, exclusive, p);
    pthread_join(a, 0);
    pthread_join(b, 0);
#ifdef BUG
    pthread_mutex_lock(&p->m);
    pthread_mutex_lock(&p->m);
#endif
    return p;
}

int main(void)
{
    void *a = use_slot(0);
    void *b = use_slot(1);
    assert(a == b); /* the test is about one slot */
    return 0;
}
