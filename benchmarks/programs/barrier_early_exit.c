/*
 * barrier_early_exit: three workers share three items, then meet at a
 * barrier before the merge phase.
 *
 * Bug: a worker that got no item returns early ("nothing to merge") and
 * never reaches the barrier, which was initialised for three threads; the
 * others wait at the barrier forever. Whether some worker gets no item
 * depends on the schedule: a worker that runs long enough takes several.
 *
 * Failing interleaving: the default one: worker 1 takes all three items
 * and waits at the barrier; workers 2 and 3 find nothing and leave.
 *
 * Preemptions: 0 (the correct-looking schedules are the ones that need
 * preemptions, to spread the items).
 * Kind: deadlock (natively: a hang).
 * Fixed (-DFIXED): every worker waits at the barrier.
 * Native (native.sh): hangs on the first run (the first worker takes every item).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

#define WORKERS 3
#define ITEMS 3

static pthread_barrier_t merge_phase;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int next_item;
static int done[ITEMS];

static int grab(void)
{
    pthread_mutex_lock(&lock);
    int i = next_item < ITEMS ? next_item++ : -1;
    pthread_mutex_unlock(&lock);
    return i;
}

static void *worker(void *arg)
{
    (void)arg;
    int mine = 0;
    for (int i; (i = grab()) >= 0; mine++)
        done[i] = 1;
#ifndef FIXED
    if (mine == 0)
        return NULL;
#endif
    pthread_barrier_wait(&merge_phase);
    for (int i = 0; i < ITEMS; i++)
        assert(done[i]);
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    pthread_barrier_init(&merge_phase, NULL, WORKERS);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&merge_phase);
    return 0;
}
