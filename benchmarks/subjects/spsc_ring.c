/*
 * Bounded single-producer single-consumer ring (Lamport, 1983; the usual
 * C11 form): the producer owns tail, the consumer owns head, each reads the
 * other's index to see whether the ring is full or empty, and each
 * publishes its own index with a release store after it is done with the
 * slot. Capacity 2, so that tests of a few calls fill it.
 *
 * Producer and consumer under random matrices: the algorithm is correct
 * only with one producer and one consumer. A random matrix puts push and
 * pop in any thread, so push takes a "producer token" and pop a "consumer
 * token" (two mutexes, each held for the whole operation): whichever thread
 * calls push is the producer for that call, pushes never overlap each
 * other, pops never overlap each other, and a push and a pop run
 * concurrently without any lock in common, which is the race the ring is
 * about. (chase_lev.c explains why not a designated thread.)
 *
 *   correct                     linearizable
 *   -DBUG_PUBLISH_BEFORE_WRITE  push advances tail before it writes the
 *                               slot: the slot is published before it holds
 *                               the value, and a pop in between returns
 *                               what the slot held before (0, or a value
 *                               popped earlier).
 *   -DBUG_FREE_BEFORE_READ      pop advances head before it reads the slot:
 *                               the slot is handed back to the producer
 *                               while pop still needs it, and a push into
 *                               the full ring overwrites it first (pop
 *                               returns the newer value).
 *
 * Operations: push(v) returns 0, or -1 when the ring is full; pop() returns
 * the oldest value or -1 when it is empty. The slots are relaxed atomics:
 * lineup preempts only at atomics and pthread calls, and with plain slots
 * the two bugs above would have no scheduling point between the index store
 * and the slot access (they are data races, which lineup does not detect).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 2

struct ring {
    pthread_mutex_t producer_token;
    pthread_mutex_t consumer_token;
    atomic_ullong head; /* next slot to read; written by the consumer */
    atomic_ullong tail; /* next slot to write; written by the producer */
    _Atomic int64_t slot[CAPACITY];
};

static void *create(void)
{
    struct ring *r = calloc(1, sizeof *r);
    pthread_mutex_init(&r->producer_token, NULL);
    pthread_mutex_init(&r->consumer_token, NULL);
    return r;
}

static void destroy(void *obj)
{
    struct ring *r = obj;
    pthread_mutex_destroy(&r->producer_token);
    pthread_mutex_destroy(&r->consumer_token);
    free(r);
}

static int64_t push(void *obj, int64_t value)
{
    struct ring *r = obj;
    int64_t result = 0;
    pthread_mutex_lock(&r->producer_token);
    unsigned long long t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    unsigned long long h = atomic_load_explicit(&r->head, memory_order_acquire);
    if (t - h == CAPACITY) {
        result = -1;
    } else {
#ifdef BUG_PUBLISH_BEFORE_WRITE
        atomic_store_explicit(&r->tail, t + 1, memory_order_release);
        atomic_store_explicit(&r->slot[t % CAPACITY], value, memory_order_relaxed);
#else
        atomic_store_explicit(&r->slot[t % CAPACITY], value, memory_order_relaxed);
        atomic_store_explicit(&r->tail, t + 1, memory_order_release);
#endif
    }
    pthread_mutex_unlock(&r->producer_token);
    return result;
}

static int64_t pop(void *obj, int64_t unused)
{
    struct ring *r = obj;
    (void)unused;
    int64_t value = -1;
    pthread_mutex_lock(&r->consumer_token);
    unsigned long long h = atomic_load_explicit(&r->head, memory_order_relaxed);
    unsigned long long t = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h != t) {
#ifdef BUG_FREE_BEFORE_READ
        atomic_store_explicit(&r->head, h + 1, memory_order_release);
        value = atomic_load_explicit(&r->slot[h % CAPACITY], memory_order_relaxed);
#else
        value = atomic_load_explicit(&r->slot[h % CAPACITY], memory_order_relaxed);
        atomic_store_explicit(&r->head, h + 1, memory_order_release);
#endif
    }
    pthread_mutex_unlock(&r->consumer_token);
    return value;
}

LINEUP_HARNESS(spsc_ring, create, destroy, LINEUP_OP(push, 1), LINEUP_OP(push, 2), LINEUP_OP(pop, 0));
