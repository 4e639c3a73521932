/*
 * A worker whose timed lock gave up unlocks anyway. glibc does not check
 * who unlocks a normal mutex: it releases the one the holder is using, and
 * a third thread gets into the critical section beside the holder. With
 * -DERRORCHECK the mutex checks: that unlock fails with EPERM and the
 * section stays exclusive.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static pthread_mutex_t m;
static atomic_int inside;

static void section(void)
{
    assert(atomic_fetch_add(&inside, 1) == 0);
    atomic_fetch_sub(&inside, 1);
}

static void *locker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    section();
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *impatient(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int rc = pthread_mutex_timedlock(&m, &ts);
    if (rc == 0)
        section();
    rc = pthread_mutex_unlock(&m); /* the bug: also after ETIMEDOUT, unchecked */
#ifdef ERRORCHECK
    assert(rc == 0 || rc == EPERM);
#endif
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
#ifdef ERRORCHECK
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
#endif
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
    pthread_t t[3];
    pthread_create(&t[0], NULL, locker, NULL);
    pthread_create(&t[1], NULL, impatient, NULL);
    pthread_create(&t[2], NULL, locker, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return 0;
}
