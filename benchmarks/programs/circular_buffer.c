/*
 * circular_buffer: a single-producer single-consumer ring buffer of two
 * slots with atomic head and tail indices, carrying the values 1..4.
 *
 * Bug: the producer publishes the new tail before it stores the value in
 * the slot. A consumer that sees the new tail reads the slot before the
 * value is there (the old contents: 0, or a value from the previous lap).
 *
 * Failing interleaving: the producer stores tail = 1 and is preempted before
 * storing slot 0; the consumer sees one element and reads slot 0.
 *
 * Preemptions: 1 (the producer between its two stores).
 * Kind: assertion in the consumer (values arrive in order).
 * Fixed (-DFIXED): the slot is written before the tail is published.
 * Native (native.sh): fails now and then (first failure after 11 to 116 runs).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define SIZE 2
#define COUNT 4

static atomic_uint head, tail; /* head: next to read; tail: next to write */
static atomic_int slot[SIZE];

static void *producer(void *arg)
{
    (void)arg;
    for (int v = 1; v <= COUNT; v++) {
        unsigned t = atomic_load_explicit(&tail, memory_order_relaxed);
        while (t - atomic_load_explicit(&head, memory_order_acquire) == SIZE)
            ; /* full */
#ifdef FIXED
        atomic_store_explicit(&slot[t % SIZE], v, memory_order_relaxed);
        atomic_store_explicit(&tail, t + 1, memory_order_release);
#else
        atomic_store_explicit(&tail, t + 1, memory_order_release);
        atomic_store_explicit(&slot[t % SIZE], v, memory_order_relaxed);
#endif
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int expect = 1; expect <= COUNT; expect++) {
        unsigned h = atomic_load_explicit(&head, memory_order_relaxed);
        while (atomic_load_explicit(&tail, memory_order_acquire) == h)
            ; /* empty */
        int v = atomic_load_explicit(&slot[h % SIZE], memory_order_relaxed);
        atomic_store_explicit(&head, h + 1, memory_order_release);
        assert(v == expect);
    }
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
