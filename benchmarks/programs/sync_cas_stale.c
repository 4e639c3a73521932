/*
 * sync_cas_stale: a counter updated with a __sync compare-and-swap loop.
 *
 * Bug: __sync_bool_compare_and_swap, unlike C11's compare_exchange, does
 * not hand back the current value on failure, and the loop never reloads
 * `old`. Once another thread has changed the counter, the CAS fails
 * forever.
 *
 * Failing interleaving: thread 1 loads the counter and is preempted before
 * its CAS; thread 2 adds; thread 1's CAS now fails on every retry.
 *
 * Preemptions: 1 (thread 1 between its load and its CAS).
 * Kind: livelock (a thread retrying an operation that can never succeed;
 * natively: a hang with one thread busy).
 * Fixed (-DFIXED): the loop reloads `old` after a failed CAS.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

#define THREADS 2
#define ADDS 2

static long counter;

static void add(long d)
{
    long old = __atomic_load_n(&counter, __ATOMIC_RELAXED);
#ifdef FIXED
    while (!__sync_bool_compare_and_swap(&counter, old, old + d))
        old = __atomic_load_n(&counter, __ATOMIC_RELAXED);
#else
    while (!__sync_bool_compare_and_swap(&counter, old, old + d))
        ;
#endif
}

static void *adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < ADDS; i++)
        add(1);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, adder, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(__atomic_load_n(&counter, __ATOMIC_SEQ_CST) == THREADS * ADDS);
    return 0;
}
