/*
 * Timed waits in loops, correct programs: a flusher that wakes on a
 * deadline or when told to stop, and a worker that retries a timed lock
 * until the holder lets go. Giving up lets only time pass: while another
 * thread can go on, a wait that would time out again and again must not
 * make the execution endless.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int stop, flushes, pending;

static struct timespec soon(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    return ts;
}

static void *flusher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!stop) {
        struct timespec ts = soon();
        pthread_cond_timedwait(&c, &m, &ts);
        if (pending) {
            pending = 0;
            flushes++;
        }
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *retrier(void *arg)
{
    (void)arg;
    struct timespec ts = soon();
    while (pthread_mutex_timedlock(&held, &ts) == ETIMEDOUT)
        ts = soon();
    pthread_mutex_unlock(&held);
    return NULL;
}

int main(void)
{
    pthread_mutex_lock(&held);
    pthread_t t[2];
    pthread_create(&t[0], NULL, flusher, NULL);
    pthread_create(&t[1], NULL, retrier, NULL);
    pthread_mutex_lock(&m);
    pending = 1;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&held);
    pthread_mutex_lock(&m);
    stop = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(flushes <= 1);
    return 0;
}
