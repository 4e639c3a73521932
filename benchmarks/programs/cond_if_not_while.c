/*
 * cond_if_not_while: a blocking queue whose consumers wait with `if`
 * instead of `while`.
 *
 * Bug: a woken consumer does not re-test the predicate. Between the
 * producer's signal and the woken consumer re-acquiring the mutex, another
 * consumer can take the item (a "stolen wakeup"); the woken consumer then
 * takes from an empty queue.
 *
 * Failing interleaving: consumer 1 finds the queue empty and waits; the
 * producer puts item 1, signals consumer 1 and unlocks, and is preempted
 * before putting item 2; consumer 2 takes item 1; consumer 1 wakes up and
 * takes from the empty queue.
 *
 * Preemptions: 1 (the producer between its two puts). Needs no spurious
 * wakeup.
 * Kind: assertion in the consumer (queue count >= 1 when taking).
 * Fixed (-DFIXED): `while (count == 0) pthread_cond_wait(...)`.
 * Native (native.sh): fails rarely (first failure after 191 and 727 runs).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

#define ITEMS 2

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queue[ITEMS];
static int count;
static int taken[ITEMS + 1];

static void put(int v)
{
    pthread_mutex_lock(&qlock);
    queue[count++] = v;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&qlock);
}

static int take(void)
{
    pthread_mutex_lock(&qlock);
#ifdef FIXED
    while (count == 0)
        pthread_cond_wait(&nonempty, &qlock);
#else
    if (count == 0)
        pthread_cond_wait(&nonempty, &qlock);
#endif
    assert(count > 0);
    int v = queue[--count];
    pthread_mutex_unlock(&qlock);
    return v;
}

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++)
        put(i);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int v = take();
    pthread_mutex_lock(&qlock);
    taken[v]++;
    pthread_mutex_unlock(&qlock);
    return NULL;
}

int main(void)
{
    pthread_t c1, c2, p;
    pthread_create(&c1, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c2, NULL, consumer, NULL);
    pthread_join(c1, NULL);
    pthread_join(p, NULL);
    pthread_join(c2, NULL);
    for (int i = 1; i <= ITEMS; i++)
        assert(taken[i] == 1);
    return 0;
}
