/*
 * A robust mutex that its owner's end left unusable (unlocked without
 * pthread_mutex_consistent) is destroyed and initialized again, as POSIX
 * allows: the new mutex works. Initialized again without the robust
 * attribute, it is a plain mutex: a thread that ends holding it leaves it
 * locked (trylock: EBUSY), no EOWNERDEAD. Both pass natively.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>

static pthread_mutex_t m;

static void *dier(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    return NULL; /* ends holding it */
}

static void die_holding(void)
{
    pthread_t t;
    pthread_create(&t, NULL, dier, NULL);
    pthread_join(t, NULL);
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    die_holding();
    assert(pthread_mutex_lock(&m) == EOWNERDEAD);
    pthread_mutex_unlock(&m); /* not made consistent */
    assert(pthread_mutex_lock(&m) == ENOTRECOVERABLE);
    pthread_mutex_destroy(&m);
    pthread_mutex_init(&m, &a);
    int rc = pthread_mutex_lock(&m);
    assert(rc == 0);
    pthread_mutex_unlock(&m);
    pthread_mutex_destroy(&m);
    pthread_mutexattr_destroy(&a);

    pthread_mutex_init(&m, NULL);
    die_holding();
    rc = pthread_mutex_trylock(&m);
    assert(rc == EBUSY);
    return 0;
}
