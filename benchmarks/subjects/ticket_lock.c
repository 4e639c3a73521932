/*
 * Ticket spin lock protecting a counter (Mellor-Crummey and Scott, TOCS
 * 1991): acquire draws a ticket with fetch-and-add on next and spins until
 * serving reaches it; release hands the lock to the next ticket. FIFO
 * fair.
 *
 *   correct                linearizable
 *   -DBUG_TICKET_LOAD_STORE  acquire draws its ticket with a load and a
 *                          store of next instead of one fetch-and-add: two
 *                          threads draw the same ticket, both are served
 *                          at once, and their increments overwrite each
 *                          other (lost update: two inc() return the same
 *                          value). Both then release, so serving can also
 *                          run past next, and a later acquire spins
 *                          forever (a livelock, found in larger tests).
 *
 * The protected counter is the one of tas_lock.c (inc() returns the value
 * before the increment, get() the current value; relaxed atomics so that
 * lineup can preempt inside the critical section).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct counter {
    atomic_uint next;
    atomic_uint serving;
    atomic_llong count;
};

static void lock(struct counter *c)
{
#ifdef BUG_TICKET_LOAD_STORE
    unsigned ticket = atomic_load_explicit(&c->next, memory_order_relaxed);
    atomic_store_explicit(&c->next, ticket + 1, memory_order_relaxed);
#else
    unsigned ticket = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed);
#endif
    while (atomic_load_explicit(&c->serving, memory_order_acquire) != ticket)
        ;
}

static void unlock(struct counter *c)
{
    unsigned s = atomic_load_explicit(&c->serving, memory_order_relaxed);
    atomic_store_explicit(&c->serving, s + 1, memory_order_release);
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
    (void)unused;
    lock(c);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    atomic_store_explicit(&c->count, v + 1, memory_order_relaxed);
    unlock(c);
    return v;
}

static int64_t get(void *obj, int64_t unused)
{
    struct counter *c = obj;
    (void)unused;
    lock(c);
    long long v = atomic_load_explicit(&c->count, memory_order_relaxed);
    unlock(c);
    return v;
}

LINEUP_HARNESS(ticket_lock, create, destroy, LINEUP_OP(inc, 0), LINEUP_OP(get, 0));
