/*
 * Manual-reset event (the .NET ManualResetEvent of the Line-Up paper,
 * section 5.2.1, written the way a C programmer would): an atomic flag with
 * a lock-free fast path, and a mutex and condition variable for waiting.
 * wait() returns at once if the flag is set; otherwise it registers as a
 * waiter under the mutex, and sleeps until the flag is set. set() sets the
 * flag and, if anyone registered, broadcasts under the mutex; reset()
 * clears the flag. A waiter registers and checks the flag in one critical
 * section, and set() writes the flag before it reads the waiter count, so
 * one of the two always sees the other.
 *
 *   correct               linearizable
 *   -DBUG_LOST_WAKEUP     set() broadcasts without taking the mutex: a
 *                         waiter that registered and found the flag clear,
 *                         but has not reached pthread_cond_wait yet, misses
 *                         the broadcast and sleeps forever with the flag set
 *                         (stuck wait()). Test: wait() | set().
 *
 * Operations: set() and reset() return 0; wait() returns 1 once the flag is
 * set. A wait that overlaps a set() and a reset() may miss the set and wait
 * for the next one: serially that is wait() after reset(), so it is not a
 * bug (the paper's version returns in that case, but either is a valid
 * deterministic specification).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct event {
    pthread_mutex_t m;
    pthread_cond_t cv;
    atomic_bool flag;
    atomic_int waiters;
};

static void *create(void)
{
    struct event *e = calloc(1, sizeof *e);
    pthread_mutex_init(&e->m, NULL);
    pthread_cond_init(&e->cv, NULL);
    return e;
}

static void destroy(void *obj)
{
    struct event *e = obj;
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->m);
    free(e);
}

static int64_t set(void *obj, int64_t unused)
{
    struct event *e = obj;
    (void)unused;
    atomic_store(&e->flag, true);
    if (atomic_load(&e->waiters) > 0) {
#ifdef BUG_LOST_WAKEUP
        pthread_cond_broadcast(&e->cv);
#else
        pthread_mutex_lock(&e->m);
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->m);
#endif
    }
    return 0;
}

static int64_t reset(void *obj, int64_t unused)
{
    struct event *e = obj;
    (void)unused;
    atomic_store(&e->flag, false);
    return 0;
}

static int64_t wait(void *obj, int64_t unused)
{
    struct event *e = obj;
    (void)unused;
    if (atomic_load(&e->flag))
        return 1;
    pthread_mutex_lock(&e->m);
    atomic_fetch_add(&e->waiters, 1);
    while (!atomic_load(&e->flag))
        pthread_cond_wait(&e->cv, &e->m);
    atomic_fetch_sub(&e->waiters, 1);
    pthread_mutex_unlock(&e->m);
    return 1;
}

LINEUP_HARNESS(mre, create, destroy, LINEUP_OP(wait, 0), LINEUP_OP(set, 0), LINEUP_OP(reset, 0));
