/*
 * main holds a mutex across SLEEPS sleeps and then lets go; a worker waits
 * for it with a timed lock (with -DSEM: main posts a semaphore after its
 * sleeps, and the worker waits with sem_timedwait). Natively the worker
 * always gets it (a 1 ms sleep against a 5 s deadline), so the assertion
 * that it did not fails on every run. Every thread that could run spun
 * (main's sleep, the worker's wait that would give up), and until session
 * 30 their turns gave the wait up first: one execution, the bug missed,
 * and every schedule said to be explored (an audit's). With -DGOT the
 * assertion is the opposite: it fails only where the wait gives up, a
 * choice at a cost of 1 (docs/run.md, "Virtual time").
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

#ifndef SLEEPS
#define SLEEPS 1
#endif

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t s;
static int got;

static void *worker(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 5;
#ifdef SEM
    if (sem_timedwait(&s, &ts) == 0)
        got = 1;
#else
    if (pthread_mutex_timedlock(&m, &ts) == 0) {
        got = 1;
        pthread_mutex_unlock(&m);
    }
#endif
    return NULL;
}

int main(void)
{
    sem_init(&s, 0, 0);
    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < SLEEPS; i++)
        usleep(1000);
    pthread_mutex_unlock(&m);
    sem_post(&s);
    pthread_join(t, NULL);
#ifdef GOT
    assert(got == 1);
#else
    assert(got == 0); /* wrong: the worker gets it */
#endif
    return 0;
}
