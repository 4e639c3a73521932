/*
 * join_cycle: two workers; the first one to finish becomes the collector
 * and joins the other to merge its result.
 *
 * Bug: the election is a check-then-act on an atomic (load, then store):
 * both workers can see "no collector yet", both elect themselves and each
 * joins the other: a join cycle.
 *
 * Failing interleaving: worker 0 reads collector == -1 and is preempted
 * before its store; worker 1 reads -1, stores 1 and joins worker 0; worker 0
 * stores 0 and joins worker 1.
 *
 * Preemptions: 1 (worker 0 between its load and its store).
 * Kind: deadlock (both workers in pthread_join, main in sem_wait). glibc
 * detects this cycle and returns EDEADLK to the second joiner, so natively
 * it shows as the assertion on pthread_join's result; a tool that models
 * join as blocking reports a deadlock. Either is the bug.
 * Fixed (-DFIXED): the election is a compare-and-swap.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>

static pthread_t workers[2];
static pthread_mutex_t start = PTHREAD_MUTEX_INITIALIZER;
static atomic_int collector = -1;
static int result[2];
static int total;
static sem_t collected;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* wait until main has stored both handles */
    pthread_mutex_lock(&start);
    pthread_mutex_unlock(&start);
    result[id] = 10 * (id + 1);
#ifdef FIXED
    int none = -1;
    int elected = atomic_compare_exchange_strong(&collector, &none, id);
#else
    int elected = 0;
    if (atomic_load(&collector) == -1) {
        atomic_store(&collector, id);
        elected = 1;
    }
#endif
    if (elected) {
        int rc = pthread_join(workers[1 - id], NULL);
        assert(rc == 0);
        total = result[0] + result[1];
        sem_post(&collected);
    }
    return NULL;
}

int main(void)
{
    sem_init(&collected, 0, 0);
    pthread_mutex_lock(&start);
    for (int i = 0; i < 2; i++)
        pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i);
    pthread_mutex_unlock(&start);
    sem_wait(&collected);
    pthread_join(workers[atomic_load(&collector)], NULL);
    assert(total == 30);
    sem_destroy(&collected);
    return 0;
}
