/*
 * A timed lock gives up while main holds the mutex: the report lists the
 * timeout among the schedule's choices, since it is why the assertion
 * fails.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    int rc = pthread_mutex_timedlock(&m, &ts); /* line 19 */
    assert(rc == 0);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    return 0;
}
