/*
 * spin_barrier_livelock: a hand-written spinning barrier between two
 * threads (an arrival counter and a generation number).
 *
 * Bug: arrival is counted with an atomic load and a separate atomic store
 * instead of one fetch_add. Two threads arriving together both count
 * themselves as the first; the count never reaches 2, nobody advances the
 * generation, and both spin forever.
 *
 * Failing interleaving: thread 1 loads arrived == 0 and is preempted before
 * its store; thread 2 loads 0, stores 1 and spins; thread 1 stores 1 and
 * spins.
 *
 * Preemptions: 1 (thread 1 between its load and its store).
 * Kind: livelock (every thread spins on a location nobody will change;
 * natively: a hang with both threads busy).
 * Fixed (-DFIXED): atomic_fetch_add.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define N 2

static atomic_int arrived;
static atomic_int generation;
static int data[N];

static void barrier_wait(void)
{
    int gen = atomic_load(&generation);
#ifdef FIXED
    int a = atomic_fetch_add(&arrived, 1) + 1;
#else
    int a = atomic_load(&arrived) + 1;
    atomic_store(&arrived, a);
#endif
    if (a == N) {
        atomic_store(&arrived, 0);
        atomic_store(&generation, gen + 1);
    } else {
        while (atomic_load(&generation) == gen)
            ;
    }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    data[id] = id + 1;
    barrier_wait();
    assert(data[(id + 1) % N] == (id + 1) % N + 1);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    return 0;
}
