/*
 * A thread retries a timed condition wait for a flag nobody sets. In
 * `lineup run` its lock and unlock are progress, so the execution runs to
 * the cap on its length; its report lists the first 16 of the some 32,000
 * timeouts (naming each one's place took over a minute, an audit's).
 */
#include <pthread.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void *waiter(void *arg)
{
    pthread_mutex_lock(&m);
    while (!ready) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&c, &m, &ts);
    }
    pthread_mutex_unlock(&m);
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL);
    return 0;
}
