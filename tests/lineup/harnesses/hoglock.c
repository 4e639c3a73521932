/*
 * A counter under a test-and-set spin lock whose unlock keeps the lock when
 * a waiter has announced itself ("it will take it anyway"): the waiter then
 * spins for good. Serially nobody waits, so every call returns; two
 * concurrent inc()s livelock when the second arrives while the first holds
 * the lock. How soon lineup calls that spinning a livelock is --spin-bound,
 * which the replay file records.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

struct hog {
    atomic_int lock, waiting;
    atomic_long count;
};

static void *create(void)
{
    return calloc(1, sizeof(struct hog));
}

static int64_t inc(void *o, int64_t unused)
{
    struct hog *h = o;
    (void)unused;
    atomic_fetch_add(&h->waiting, 1);
    while (atomic_exchange(&h->lock, 1))
        while (atomic_load(&h->lock))
            ;
    atomic_fetch_sub(&h->waiting, 1);
    int64_t v = atomic_fetch_add(&h->count, 1) + 1;
    if (atomic_load(&h->waiting) == 0) /* the bug: a waiter is left spinning */
        atomic_store(&h->lock, 0);
    return v;
}

LINEUP_HARNESS(hog, create, free, LINEUP_OP(inc, 0));
