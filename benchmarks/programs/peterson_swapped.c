/*
 * peterson_swapped: Peterson's mutual exclusion for two threads, with
 * sequentially consistent atomics, each thread entering the critical
 * section once.
 *
 * Bug: lock() gives the turn away before raising its own flag (the two
 * stores of the entry protocol are swapped). A thread that gave the turn
 * away but has not raised its flag yet lets the other one in, then raises
 * its flag, finds the turn is its own, and enters too.
 *
 * Failing interleaving: thread 0 stores turn = 1 and is preempted; thread 1
 * stores turn = 0, flag[1] = 1, sees flag[0] == 0 and enters, and is
 * preempted inside the critical section; thread 0 stores flag[0] = 1, sees
 * turn == 0 and enters as well.
 *
 * Preemptions: 2 (thread 0 between its two stores, thread 1 inside the
 * critical section).
 * Kind: assertion (two threads in the critical section).
 * Fixed (-DFIXED): flag first, then turn, as Peterson wrote it.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int flag[2];
static atomic_int turn;
static atomic_int inside;

static void lock(int me)
{
    int other = 1 - me;
#ifdef FIXED
    atomic_store(&flag[me], 1);
    atomic_store(&turn, other);
#else
    atomic_store(&turn, other);
    atomic_store(&flag[me], 1);
#endif
    while (atomic_load(&flag[other]) && atomic_load(&turn) == other)
        ;
}

static void unlock(int me)
{
    atomic_store(&flag[me], 0);
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    lock(me);
    int already = atomic_fetch_add(&inside, 1);
    assert(already == 0);
    atomic_fetch_sub(&inside, 1);
    unlock(me);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
