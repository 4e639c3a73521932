/*
 * Accesses the reduction's footprints missed, each found by an audit's
 * fuzzer as a history lost with reduction on (PASS on, FAIL off). Selected
 * with --harness:
 *   reuse  reader() loads the node, passes a scheduling point, then reads
 *          its value through the pointer; replace() unpublishes the node,
 *          frees it, and mallocs a new one, which gets the same memory, then
 *          writes 5, passes a point, writes 6 and publishes it. The stale
 *          read of 5 needs the two blocks' keys to meet: a freed block's
 *          memory handed out again keeps its rank.
 *   rbw    reader() reads y, passes a point, reads y again, then writes y:
 *          clang (-O1 and up) left out the reads, which a write of the same
 *          address follows in their basic block, unless lineup-cc asks for
 *          them (-tsan-instrument-read-before-write).
 *   snap   snap() returns a shared buffer through lineup_result_bytes,
 *          whose copy is the caller's read; flash() writes 'x' into it and
 *          puts 'a' back.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int64_t pad[2];
    int64_t val;
};

struct obj {
    struct node *_Atomic slot;
    _Atomic int point;
    _Atomic int d0, d1, f; /* rbw's points, apart so that only y orders its steps */
    int64_t y;
    char buf[8];
};

static void *create(void)
{
    struct obj *o = calloc(1, sizeof *o);
    struct node *n = malloc(sizeof *n);
    if (!o || !n)
        abort();
    n->val = 7;
    atomic_store(&o->slot, n);
    memcpy(o->buf, "aaaa", 4);
    return o;
}

static void destroy(void *p)
{
    struct obj *o = p;
    free(atomic_load(&o->slot));
    free(o);
}

/* 6 when replace() is under way: as if it had finished */
static int64_t reader(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    struct node *n = atomic_load(&o->slot);
    if (!n)
        return 6;
    atomic_load(&o->point);
    int64_t v = n->val;
    atomic_load(&o->point);
    return v;
}

static int64_t replace(void *p, int64_t v)
{
    struct obj *o = p;
    struct node *old = atomic_exchange(&o->slot, NULL);
    free(old);
    struct node *n = malloc(sizeof *n);
    if (!n)
        abort();
    n->val = v;
    atomic_fetch_add(&o->point, 1);
    n->val = v + 1;
    atomic_store(&o->slot, n);
    return 0;
}

static int64_t write_y(void *p, int64_t v)
{
    struct obj *o = p;
    atomic_load(&o->d0);
    o->y = v;
    return 0;
}

/* 0 then 2 only if write_y() ran in between */
static int64_t read_twice(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    int64_t a = o->y;
    atomic_fetch_add(&o->f, 1);
    int64_t b = o->y;
    atomic_load(&o->d1);
    o->y = b + 1;
    return a * 10 + b;
}

static int64_t flash(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    atomic_load(&o->point);
    o->buf[0] = 'x';
    atomic_load(&o->point);
    o->buf[0] = 'a';
    atomic_load(&o->point);
    return 0;
}

static int64_t snap(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    atomic_load(&o->point);
    lineup_result_bytes(o->buf, 4);
    atomic_load(&o->point);
    return 0;
}

LINEUP_HARNESS(reuse, create, destroy, LINEUP_OP(reader, 0), LINEUP_OP(replace, 5));
LINEUP_HARNESS(rbw, create, destroy, LINEUP_OP(write_y, 2), LINEUP_OP(read_twice, 0));
LINEUP_HARNESS(snap, create, destroy, LINEUP_OP(flash, 0), LINEUP_OP(snap, 0));
