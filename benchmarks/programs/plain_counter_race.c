/*
 * plain_counter_race: SV-COMP style: two threads increment a plain global
 * int, main checks the sum with reach_error().
 *
 * Bug: `counter++` on a plain int is a load and a store with no
 * synchronization: a data race, and a lost update when the two threads'
 * increments interleave.
 *
 * Failing interleaving: thread 1 loads, thread 2 loads, both store 1.
 * Tools that schedule at every shared access (the SV-COMP verifiers,
 * SCTBench's instrumentation) find the assertion with 1 preemption. lineup
 * schedules only at synchronization, atomics and volatiles: between the
 * load and the store of a plain increment there is no scheduling point, so
 * the assertion cannot fail under lineup; what lineup reports is the data
 * race (--races), at 0 preemptions.
 *
 * Preemptions: 1 at instruction granularity; under lineup: none needed for
 * the race, the assertion is unreachable.
 * Kind: data race (with --races); reach_error() at instruction granularity.
 * Fixed (-DFIXED): the increment is done under a mutex.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

void reach_error(void)
{
    assert(0);
}

static int counter;
#ifdef FIXED
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *inc(void *arg)
{
    (void)arg;
#ifdef FIXED
    pthread_mutex_lock(&m);
#endif
    counter++;
#ifdef FIXED
    pthread_mutex_unlock(&m);
#endif
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, inc, NULL);
    pthread_create(&t2, NULL, inc, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    if (counter != 2)
        reach_error();
    return 0;
}
