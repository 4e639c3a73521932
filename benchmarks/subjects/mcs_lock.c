/*
 * MCS queue lock protecting a counter (Mellor-Crummey and Scott, TOCS
 * 1991): each acquirer brings a queue node (here on its stack), swaps itself
 * into the lock's tail and, if there was a predecessor, links itself behind
 * it and spins on its own node; release hands the lock to the successor, or,
 * when there seems to be none, swings the tail back to NULL with a CAS, and
 * if that CAS fails (a successor swapped itself in but has not linked yet)
 * waits for the link and then hands over.
 *
 *   correct                  linearizable
 *   -DBUG_RELEASE_STORE      release, finding no successor linked, resets
 *                            the tail with a plain store instead of the
 *                            CAS: a successor that had already swapped
 *                            itself into the tail links itself behind a
 *                            node whose owner is gone and spins forever
 *                            (a stuck inc(), reported as a livelock: the
 *                            spinning thread is the only one left).
 *
 * The protected counter is the one of tas_lock.c (inc() returns the value
 * before the increment, get() the current value; relaxed atomics so that
 * lineup can preempt inside the critical section).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct qnode {
    _Atomic(struct qnode *) next;
    atomic_bool locked;
};

struct counter {
    _Atomic(struct qnode *) tail;
    atomic_llong count;
};

static void lock(struct counter *c, struct qnode *me)
{
    atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&me->locked, true, memory_order_relaxed);
    struct qnode *pred = atomic_exchange_explicit(&c->tail, me, memory_order_acq_rel);
    if (pred != NULL) {
        atomic_store_explicit(&pred->next, me, memory_order_release);
        while (atomic_load_explicit(&me->locked, memory_order_acquire))
            ;
    }
}

static void unlock(struct counter *c, struct qnode *me)
{
    struct qnode *succ = atomic_load_explicit(&me->next, memory_order_acquire);
    if (succ == NULL) {
#ifdef BUG_RELEASE_STORE
        atomic_store_explicit(&c->tail, NULL, memory_order_release);
        return;
#else
        struct qnode *expected = me;
        if (atomic_compare_exchange_strong_explicit(&c->tail, &expected, NULL, memory_order_acq_rel,
                                                    memory_order_relaxed))
            return;
        while ((succ = atomic_load_explicit(&me->next, memory_order_acquire)) == NULL)
            ;
#endif
    }
    atomic_store_explicit(&succ->locked, false, memory_order_release);
}

static void *create(void)
{
    return calloc(1, sizeof(struct counter));
}

static void destroy(void *obj)
{
    free(obj);
}

static int64_t inc(void *obj, int64_t unused)
{
    struct counter *c = obj;
    struct qnode me;
    (void)unused;
    lock(c, &me);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    atomic_store_explicit(&c->count, v + 1, memory_order_relaxed);
    unlock(c, &me);
    return v;
}

static int64_t get(void *obj, int64_t unused)
{
    struct counter *c = obj;
    struct qnode me;
    (void)unused;
    lock(c, &me);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    unlock(c, &me);
    return v;
}

LINEUP_HARNESS(mcs_lock, create, destroy, LINEUP_OP(inc, 0), LINEUP_OP(get, 0));
