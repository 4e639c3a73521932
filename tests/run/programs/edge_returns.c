/*
 * Return values glibc gives at the edges, which lineup's models must give
 * too: a timed lock with a time out of range takes a free mutex (glibc looks
 * at the time only when it must wait), fails with EINVAL on a held one and
 * with EDEADLK on an error-checking one the caller holds;
 * sem_post on a semaphore at SEM_VALUE_MAX fails with EOVERFLOW and leaves
 * the count; destroying a read-locked rwlock succeeds, a deleted key's value
 * is NULL, and clock_nanosleep refuses the thread's CPU clock.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *holder(void *arg)
{
    (void)arg;
    struct timespec bad = {.tv_sec = 0, .tv_nsec = 2000000000};
    assert(pthread_mutex_timedlock(&m, &bad) == EINVAL); /* held by main */
    assert(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &bad) == EINVAL);
    return NULL;
}

int main(void)
{
    struct timespec bad = {.tv_sec = 0, .tv_nsec = -1};
    assert(pthread_mutex_timedlock(&m, &bad) == 0);
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    pthread_join(t, NULL);
    assert(pthread_mutex_unlock(&m) == 0);

    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t e;
    pthread_mutex_init(&e, &a);
    pthread_mutex_lock(&e);
    assert(pthread_mutex_timedlock(&e, &bad) == EDEADLK);
    assert(pthread_mutex_clocklock(&e, CLOCK_MONOTONIC, &bad) == EDEADLK);
    pthread_mutex_unlock(&e);

    sem_t s;
    sem_init(&s, 0, SEM_VALUE_MAX);
    errno = 0;
    assert(sem_post(&s) == -1 && errno == EOVERFLOW);
    int v;
    sem_getvalue(&s, &v);
    assert(v == SEM_VALUE_MAX);
    assert(sem_wait(&s) == 0 && sem_post(&s) == 0);

    /* glibc checks nothing when a read-locked rwlock is destroyed */
    pthread_rwlock_t rw;
    pthread_rwlock_init(&rw, NULL);
    pthread_rwlock_rdlock(&rw);
    assert(pthread_rwlock_destroy(&rw) == 0);
    /* a deleted key's value is gone */
    pthread_key_t k;
    assert(pthread_key_create(&k, NULL) == 0);
    pthread_setspecific(k, &v);
    pthread_key_delete(k);
    assert(pthread_getspecific(k) == NULL);
    /* nobody sleeps on their own CPU clock */
    struct timespec short_ = {.tv_sec = 0, .tv_nsec = 1000};
    assert(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &short_, NULL) == EINVAL);
    return 0;
}
