/*
 * A counter with per-thread caches (_Thread_local): inc() adds to the
 * calling thread's cache, and every second inc() of a thread flushes the
 * cache into the shared total; inc() returns the total it flushed into, or
 * 0 when it only cached; total() returns the flushed total. A thread's cache
 * belongs to one object: the cache remembers the object's unique id and is
 * reset when the thread meets another object. With -DBUGGY_STALE, the
 * cache does not remember its object: a thread carries increments cached
 * for one object into the next one. lineup runs the test's threads on pooled thread
 * control blocks, so their thread-local variables keep their values from
 * one execution to the next: the stale cache shows as nondeterminism (a
 * serial order whose results differ between executions), reported before
 * the linearizability violation it also causes.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct obj {
    atomic_long total;
    uint64_t id;
};
static atomic_ulong next_id; /* identity only: no result depends on its value */
static _Thread_local struct {
    uint64_t owner;
    long pending;
} cache;

static void *create(void)
{
    struct obj *o = calloc(1, sizeof *o);
    o->id = atomic_fetch_add(&next_id, 1) + 1;
    return o;
}
static int64_t inc(void *x, int64_t unused)
{
    struct obj *o = x;
    (void)unused;
#ifndef BUGGY_STALE
    if (cache.owner != o->id)
        cache.owner = o->id, cache.pending = 0;
#endif
    if (++cache.pending < 2)
        return 0;
    long t = atomic_fetch_add(&o->total, cache.pending) + cache.pending;
    cache.pending = 0;
    return t;
}
static int64_t total(void *x, int64_t unused)
{
    struct obj *o = x;
    (void)unused;
    return atomic_load(&o->total);
}
LINEUP_HARNESS(tlcache, create, free, LINEUP_OP(inc, 0), LINEUP_OP(total, 0));
