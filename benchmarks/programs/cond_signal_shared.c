/*
 * cond_signal_shared: a one-slot buffer with two producers and two
 * consumers sharing one condition variable ("the slot changed").
 *
 * Bug: pthread_cond_signal() wakes one waiter, but waiters of both kinds
 * sleep on the same condition variable; the signal can wake a thread of the
 * wrong kind, which re-tests its predicate (correctly, in a loop) and goes
 * back to sleep. The wakeup meant for the other kind is lost and everyone
 * ends up waiting.
 *
 * Failing interleaving: both consumers wait (empty); producer 1 fills the
 * slot and its signal wakes consumer 1; producer 2 waits (full); consumer 1
 * empties the slot and its signal wakes consumer 2 instead of producer 2;
 * consumer 2 finds the slot empty and waits. Producer 2 and consumer 2 wait
 * forever.
 *
 * Preemptions: 0 (every switch happens when a thread blocks or ends), but
 * the threads must start in a particular order (consumers first) and two
 * signals must choose a particular waiter: lineup's data choices.
 * Kind: deadlock (natively: a hang).
 * Fixed (-DFIXED): pthread_cond_broadcast(); every waiter re-tests.
 * Native (native.sh): hangs within the first few runs (gcc and clang): the
 * consumers usually start first.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int full;
static int slot;
static int sum;

static void wake_others(void)
{
#ifdef FIXED
    pthread_cond_broadcast(&changed);
#else
    pthread_cond_signal(&changed);
#endif
}

static void *producer(void *arg)
{
    pthread_mutex_lock(&lock);
    while (full)
        pthread_cond_wait(&changed, &lock);
    slot = (int)(intptr_t)arg;
    full = 1;
    wake_others();
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!full)
        pthread_cond_wait(&changed, &lock);
    sum += slot;
    full = 0;
    wake_others();
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t c1, c2, p1, p2;
    pthread_create(&c1, NULL, consumer, NULL);
    pthread_create(&c2, NULL, consumer, NULL);
    pthread_create(&p1, NULL, producer, (void *)(intptr_t)1);
    pthread_create(&p2, NULL, producer, (void *)(intptr_t)2);
    pthread_join(c1, NULL);
    pthread_join(c2, NULL);
    pthread_join(p1, NULL);
    pthread_join(p2, NULL);
    assert(sum == 3);
    return 0;
}
