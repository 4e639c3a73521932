/*
 * Lazy initialization with double-checked locking: get() returns the
 * object, creating it on first use. The fast path is an acquire load of the
 * published pointer; the slow path takes a mutex, checks the pointer again
 * and, if it is still NULL, builds the object and publishes it with a
 * release store. The object records which creation it came from, so a
 * second creation is visible.
 *
 *   correct                 linearizable
 *   -DBUG_NO_RECHECK        the slow path does not check the pointer again
 *                           under the mutex: two callers that both saw NULL
 *                           create the object one after the other, and the
 *                           second get() returns a different object
 *                           (creation 2).
 *   -DBUG_PUBLISH_EARLY     the pointer is published before the object's
 *                           fields are written (an unpublished, half-built
 *                           object becomes reachable): a get() on the fast
 *                           path in between returns the field's initial 0.
 *
 * Operations: get() returns 10 * creation + value, 11 when correct;
 * peek() returns the same for an existing object, or -1 when there is none
 * yet, without creating it. The object's fields are relaxed atomics: its
 * construction is then a sequence of visible steps (lineup preempts only at
 * atomics and pthread calls, so a constructor of plain stores would run as
 * one step and the half-built object could not be observed).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_CREATIONS 8

struct object {
    atomic_long creation;
    atomic_long value;
};

struct lazy {
    pthread_mutex_t m;
    _Atomic(struct object *) instance;
    atomic_long creations;
    struct object storage[MAX_CREATIONS];
};

static void *create(void)
{
    struct lazy *z = calloc(1, sizeof *z);
    pthread_mutex_init(&z->m, NULL);
    return z;
}

static void destroy(void *obj)
{
    struct lazy *z = obj;
    pthread_mutex_destroy(&z->m);
    free(z);
}

static struct object *construct(struct lazy *z)
{
    long n = atomic_fetch_add(&z->creations, 1) + 1;
    struct object *o = &z->storage[(n - 1) % MAX_CREATIONS];
#ifdef BUG_PUBLISH_EARLY
    atomic_store_explicit(&z->instance, o, memory_order_release);
#endif
    atomic_store_explicit(&o->creation, n, memory_order_relaxed);
    atomic_store_explicit(&o->value, 1, memory_order_relaxed);
    return o;
}

static int64_t describe(struct object *o)
{
    return 10 * atomic_load_explicit(&o->creation, memory_order_relaxed) +
           atomic_load_explicit(&o->value, memory_order_relaxed);
}

static int64_t get(void *obj, int64_t unused)
{
    struct lazy *z = obj;
    (void)unused;
    struct object *o = atomic_load_explicit(&z->instance, memory_order_acquire);
    if (o == NULL) {
        pthread_mutex_lock(&z->m);
#ifndef BUG_NO_RECHECK
        o = atomic_load_explicit(&z->instance, memory_order_relaxed);
        if (o == NULL)
#endif
        {
            o = construct(z);
#ifndef BUG_PUBLISH_EARLY
            atomic_store_explicit(&z->instance, o, memory_order_release);
#endif
        }
        pthread_mutex_unlock(&z->m);
    }
    return describe(o);
}

static int64_t peek(void *obj, int64_t unused)
{
    struct lazy *z = obj;
    (void)unused;
    struct object *o = atomic_load_explicit(&z->instance, memory_order_acquire);
    return o ? describe(o) : -1;
}

LINEUP_HARNESS(lazy_init, create, destroy, LINEUP_OP(get, 0), LINEUP_OP(peek, 0));
