/*
 * A program whose observable result depends on the schedule in several
 * ways, for replay: two threads wait on one condition variable, so a signal
 * that finds both waiting makes the scheduler choose which one wakes (a data
 * choice in the trace); the values of an atomic counter each thread sees
 * and the order in which they log them depend on thread choices. A replay
 * of a recorded schedule must reproduce the same log.
 */
#include "programs.h"

#include <stdatomic.h>
#include <stdint.h>

int replay_mix_log[REPLAY_MIX_LOG];
int replay_mix_nlog;

static _Atomic int x, nlog;
static pthread_mutex_t m;
static pthread_cond_t c;
static int tokens;

static void record(int v)
{
    int i = atomic_fetch_add(&nlog, 1);
    if (i < REPLAY_MIX_LOG)
        replay_mix_log[i] = v;
}

static void *waiter(void *arg)
{
    int id = (int)(intptr_t)arg;
    int arrived = atomic_fetch_add(&x, id);
    pthread_mutex_lock(&m);
    while (tokens == 0)
        pthread_cond_wait(&c, &m);
    tokens--;
    pthread_mutex_unlock(&m);
    record(id * 100 + arrived);
    record(id * 100 + atomic_load(&x));
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&m);
        tokens++;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
    }
    atomic_fetch_add(&x, 10);
    return NULL;
}

void *replay_mix_main(void *arg)
{
    (void)arg;
    atomic_init(&x, 0);
    atomic_init(&nlog, 0);
    tokens = 0;
    for (int i = 0; i < REPLAY_MIX_LOG; i++)
        replay_mix_log[i] = -1;
    pthread_mutex_init(&m, NULL);
    pthread_cond_init(&c, NULL);
    pthread_t w1, w2, s;
    pthread_create(&w1, NULL, waiter, (void *)1);
    pthread_create(&w2, NULL, waiter, (void *)2);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(w1, NULL);
    pthread_join(w2, NULL);
    pthread_join(s, NULL);
    replay_mix_nlog = atomic_load(&nlog);
    pthread_cond_destroy(&c);
    pthread_mutex_destroy(&m);
    return NULL;
}
