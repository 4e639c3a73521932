/*
 * fib_bench: two threads grow a pair of counters in the manner of
 * SV-COMP's fib_bench: thread 1 does i = i + j, thread 2 does j = j + i,
 * ROUNDS times each (-DROUNDS=k, default 3), every addition an atomic load
 * of each operand and an atomic store. The largest value, fib(2 ROUNDS + 2)
 * (21 for 3 rounds, 144 for 5), is reached only when the threads
 * alternate closely; the assertion claims it is never reached.
 *
 * Bug: the assertion is wrong for one family of deep interleavings; it
 * stands for any invariant that holds unless two threads alternate many
 * times (an "ordering bug of depth d").
 *
 * Failing interleaving: the threads alternate so that each addition reads
 * the other counter's newest value (about one switch per addition).
 *
 * Preemptions: 4 for ROUNDS=3, 8 for ROUNDS=5 (minimum over all schedules,
 * computed by exhaustive search of the model: load, load, store per
 * addition; 2 for ROUNDS=2). Schedules with fewer preemptions reach at most
 * 19 (ROUNDS=3).
 * Kind: assertion in main.
 * Fixed (-DFIXED): the assertion states the true bound (<= fib(2R+2)).
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ROUNDS
#define ROUNDS 3
#endif

static atomic_int i = 1, j = 1;

static void *grow_i(void *arg)
{
    (void)arg;
    for (int k = 0; k < ROUNDS; k++) {
        int a = atomic_load(&i);
        int b = atomic_load(&j);
        atomic_store(&i, a + b);
    }
    return NULL;
}

static void *grow_j(void *arg)
{
    (void)arg;
    for (int k = 0; k < ROUNDS; k++) {
        int a = atomic_load(&j);
        int b = atomic_load(&i);
        atomic_store(&j, a + b);
    }
    return NULL;
}

static int fib(int n)
{
    int a = 0, b = 1;
    while (n-- > 0) {
        int c = a + b;
        a = b;
        b = c;
    }
    return a;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, grow_i, NULL);
    pthread_create(&t2, NULL, grow_j, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    int limit = fib(2 * ROUNDS + 2);
    int vi = atomic_load(&i), vj = atomic_load(&j);
#ifdef FIXED
    assert(vi <= limit && vj <= limit);
#else
    assert(vi < limit && vj < limit);
#endif
    return 0;
}
