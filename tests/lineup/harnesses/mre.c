/*
 * The ManualResetEvent of the Line-Up paper (section 5.2.1, Figure 9). wait()
 * registers itself as a waiter with a compare-and-swap on the state word;
 * with -DBUGGY_CAS the new value is computed from a second read of the state
 * instead of the value the CAS compares with. If set() and reset() run
 * between the two reads, the CAS installs a state with the SET bit on while
 * the event is reset: the next set() believes the event is already set,
 * wakes nobody, and wait() blocks forever. Test: wait() | set() reset() set().
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SET 1u
#define WAITER 2u

struct mre {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_uint state;
    atomic_uint generation;
};

static void *create(void)
{
    struct mre *e = calloc(1, sizeof *e);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    return e;
}

static void destroy(void *o)
{
    struct mre *e = o;
    pthread_cond_destroy(&e->cond);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static int64_t wait_event(void *o, int64_t unused)
{
    struct mre *e = o;
    (void)unused;
    unsigned gen = atomic_load(&e->generation);
    for (;;) {
        unsigned local = atomic_load(&e->state);
        if (local & SET)
            return 1;
#ifdef BUGGY_CAS
        unsigned newstate = atomic_load(&e->state) + WAITER;
#else
        unsigned newstate = local + WAITER;
#endif
        if (atomic_compare_exchange_strong(&e->state, &local, newstate))
            break;
    }
    pthread_mutex_lock(&e->lock);
    while (atomic_load(&e->generation) == gen)
        pthread_cond_wait(&e->cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
    return 1;
}

static int64_t set(void *o, int64_t unused)
{
    struct mre *e = o;
    (void)unused;
    pthread_mutex_lock(&e->lock);
    unsigned old = atomic_fetch_or(&e->state, SET);
    if (!(old & SET) && old >= WAITER) {
        atomic_store(&e->state, SET);
        atomic_fetch_add(&e->generation, 1);
        pthread_cond_broadcast(&e->cond);
    }
    pthread_mutex_unlock(&e->lock);
    return 0;
}

static int64_t reset(void *o, int64_t unused)
{
    struct mre *e = o;
    (void)unused;
    atomic_fetch_and(&e->state, ~SET);
    return 0;
}

LINEUP_HARNESS(mre, create, destroy, LINEUP_OP(wait_event, 0), LINEUP_OP(set, 0), LINEUP_OP(reset, 0));
