/*
 * Chase-Lev work-stealing deque (Chase and Lev, SPAA 2005; the C11 version
 * of Le, Pop, Cohen and Zappa Nardelli, PPoPP 2013, with a fixed-size
 * buffer): the owner pushes and takes at the bottom without locks, thieves
 * steal at the top with a CAS, and the owner's take of the last element
 * races with the thieves through a CAS on top as well.
 *
 * Owner operations under random matrices: the algorithm is correct only if
 * push and take are never concurrent with each other (one owner thread). A
 * random test matrix puts them in any thread, so push and take first take an
 * "owner token", a mutex held for the whole operation: whichever thread
 * calls them acts as the owner for that call, owner calls never overlap
 * (which is all the algorithm needs; successive owners are ordered by the
 * mutex, as one owner thread is by program order), and every owner call in
 * every matrix does real work. steal takes no token, so the owner/thief
 * races the algorithm is about are all there. (The alternative, owner
 * operations that work on one designated thread and return a sentinel on the
 * others, needs to know which test thread is calling, which lineup's harness
 * API does not say, and turns most calls of a random matrix into no-ops.)
 *
 *   correct                linearizable
 *   -DBUG_TAKE_NO_CAS      take of the last element (top == bottom after the
 *                          decrement) advances top with a plain atomic
 *                          store instead of racing the thieves with a CAS:
 *                          a steal that read the same top and won its CAS
 *                          gets the same element (it is removed twice).
 *
 * Operations: push(v) returns 0; take() returns the newest value or -1;
 * steal() returns the oldest value or -1 (it retries when it loses a CAS
 * race, so -1 means empty). The buffer slots are relaxed atomics, as in the
 * C11 version of the algorithm.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 64 /* more than any test pushes: no resizing */

struct deque {
    pthread_mutex_t owner_token;
    atomic_llong top;
    atomic_llong bottom;
    _Atomic int64_t buffer[CAPACITY];
};

static void *create(void)
{
    struct deque *d = calloc(1, sizeof *d);
    pthread_mutex_init(&d->owner_token, NULL);
    return d;
}

static void destroy(void *obj)
{
    struct deque *d = obj;
    pthread_mutex_destroy(&d->owner_token);
    free(d);
}

static int64_t push(void *obj, int64_t value)
{
    struct deque *d = obj;
    pthread_mutex_lock(&d->owner_token);
    long long b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    atomic_store_explicit(&d->buffer[b % CAPACITY], value, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    pthread_mutex_unlock(&d->owner_token);
    return 0;
}

static int64_t take(void *obj, int64_t unused)
{
    struct deque *d = obj;
    (void)unused;
    pthread_mutex_lock(&d->owner_token);
    long long b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    long long t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t value = -1;
    if (t <= b) {
        value = atomic_load_explicit(&d->buffer[b % CAPACITY], memory_order_relaxed);
        if (t == b) {
            /* the last element: race the thieves for it */
#ifdef BUG_TAKE_NO_CAS
            atomic_store_explicit(&d->top, t + 1, memory_order_seq_cst);
#else
            if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                         memory_order_relaxed))
                value = -1;
#endif
            atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        }
    } else {
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&d->owner_token);
    return value;
}

static int64_t steal(void *obj, int64_t unused)
{
    struct deque *d = obj;
    (void)unused;
    for (;;) {
        long long t = atomic_load_explicit(&d->top, memory_order_acquire);
        atomic_thread_fence(memory_order_seq_cst);
        long long b = atomic_load_explicit(&d->bottom, memory_order_acquire);
        if (t >= b)
            return -1;
        int64_t value = atomic_load_explicit(&d->buffer[t % CAPACITY], memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                    memory_order_relaxed))
            return value;
    }
}

LINEUP_HARNESS(chase_lev, create, destroy, LINEUP_OP(push, 1), LINEUP_OP(push, 2), LINEUP_OP(take, 0),
               LINEUP_OP(steal, 0));
