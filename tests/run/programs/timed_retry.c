/*
 * A worker retries a timed lock until it gets the mutex, then asserts that
 * it never had to retry: wrong whenever main holds the mutex past the
 * deadline (natively, 1 ms: under load, or when main is preempted). The
 * failure needs one give-up and then the lock; with -DFIXED the worker
 * only counts its retries.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static atomic_int x;
#ifdef FIXED
static atomic_int retries;
#endif

static struct timespec soon(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    return ts;
}

static void *retrier(void *arg)
{
    (void)arg;
    int tries = 0;
    struct timespec ts = soon();
    while (pthread_mutex_timedlock(&held, &ts) == ETIMEDOUT) {
        tries++;
        ts = soon();
    }
#ifdef FIXED
    atomic_fetch_add(&retries, tries);
#else
    assert(tries == 0);
#endif
    pthread_mutex_unlock(&held);
    return NULL;
}

int main(void)
{
    pthread_mutex_lock(&held);
    pthread_t t;
    pthread_create(&t, NULL, retrier, NULL);
    atomic_store(&x, 1);
    pthread_mutex_unlock(&held);
    pthread_join(t, NULL);
    return 0;
}
