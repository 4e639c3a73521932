/*
 * Robust mutexes: a worker ends holding one, and whoever locks it next gets
 * EOWNERDEAD with the mutex, makes it consistent and goes on, exactly once
 * in every execution. With -DNO_CONSISTENT the repair is left out: the
 * unlock leaves the mutex unusable, and a later lock fails with
 * ENOTRECOVERABLE (an assertion). With -DSTALLED the mutex is not robust
 * and stays locked when its owner ends: a deadlock, as natively.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t m;
static atomic_int repaired;

static void lock(void)
{
    int rc = pthread_mutex_lock(&m);
    assert(rc == 0 || rc == EOWNERDEAD);
    if (rc == EOWNERDEAD) {
#ifndef NO_CONSISTENT
        assert(pthread_mutex_consistent(&m) == 0);
#endif
        atomic_fetch_add(&repaired, 1);
    }
}

static void *dier(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    return NULL; /* ends holding it */
}

static void *locker(void *arg)
{
    (void)arg;
    lock();
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
#ifndef STALLED
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
#endif
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
    pthread_t t[2];
    pthread_create(&t[0], NULL, dier, NULL);
    pthread_create(&t[1], NULL, locker, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    lock();
    assert(pthread_mutex_consistent(&m) == EINVAL); /* it is */
    pthread_mutex_unlock(&m);
    assert(atomic_load(&repaired) == 1);
    return 0;
}
