/*
 * A correct program for every strategy: a producer and a consumer pass
 * three values through a one-slot buffer guarded by a mutex and a
 * condition variable, plus an atomic counter and a nondet input.
 */
#include <assert.h>
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int slot, full, sum;
static atomic_int ops;

static void *producer(void *arg)
{
    int base = (int)(long)arg;
    for (int i = 1; i <= 3; i++) {
        pthread_mutex_lock(&m);
        while (full)
            pthread_cond_wait(&c, &m);
        slot = base + i;
        full = 1;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        atomic_fetch_add(&ops, 1);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        pthread_mutex_lock(&m);
        while (!full)
            pthread_cond_wait(&c, &m);
        sum += slot;
        full = 0;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        atomic_fetch_add(&ops, 1);
    }
    return NULL;
}

int main(void)
{
    int base = __VERIFIER_nondet_int();
    pthread_t p, q;
    pthread_create(&p, NULL, producer, (void *)(long)base);
    pthread_create(&q, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(q, NULL);
    assert(sum == 3 * base + 6);
    assert(atomic_load(&ops) == 6);
    return 0;
}
