/*
 * Mutexes the model first meets at an unlock or a condition wait: an
 * error-checking and a recursive one initialized statically, a robust one
 * initialized by a constructor (before lineup's control). glibc checks who
 * unlocks or waits with those kinds, so a thread that does not hold them
 * gets EPERM, natively always; a normal one is released.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t ec = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t robust;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

__attribute__((constructor)) static void init_robust(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&robust, &a);
    pthread_mutexattr_destroy(&a);
}

static void *worker(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 0};
    assert(pthread_mutex_unlock(&ec) == EPERM);
    assert(pthread_mutex_unlock(&rec) == EPERM);
    assert(pthread_mutex_unlock(&robust) == EPERM);
    assert(pthread_cond_timedwait(&c, &ec, &ts) == EPERM);
    assert(pthread_cond_timedwait(&c, &robust, &ts) == EPERM);
    assert(pthread_mutex_unlock(&normal) == 0);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
