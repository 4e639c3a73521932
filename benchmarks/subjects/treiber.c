/*
 * Treiber's lock-free stack (Treiber, IBM RJ 5118, 1986) with node reuse:
 * popped nodes go back to a pool and later pushes take them from there, as
 * in any program without a garbage collector. The top of the stack is one
 * 64-bit word, a node index and a version tag that every successful CAS
 * increments (the classic IBM "counted pointer"), so a CAS that read the
 * top before other threads popped and pushed its node back fails.
 *
 *   correct               linearizable
 *   -DBUG_ABA             no version tag: pop reads top = A and A's next =
 *                         B, is preempted; others pop A, pop B and push a
 *                         value that reuses A; pop's CAS finds A on top
 *                         again and installs B, a node that is back in the
 *                         pool. The popped value 1 comes back (the teardown
 *                         pop returns it), and the stack and the pool now
 *                         share a node. Test: setup push(1) push(2), then
 *                         pop() | pop() pop() push(3), teardown pop pop.
 *   -DBUG_MISSING_CAS     push reads the top and stores its node with a
 *                         plain atomic store instead of a CAS: a concurrent
 *                         push or pop between the two is overwritten (lost
 *                         push, or a popped value that comes back).
 *
 * Why the pool is FIFO (it hands out the node freed longest ago, a bump
 * allocation when it is empty): with a LIFO free list the ABA above is
 * harmless for this stack, because a node's depth in the stack and its place
 * in the free list then always agree, so a node back on top always has the
 * same successor as before. A FIFO pool (or any allocator that does not
 * recycle in stack order, e.g. one shared with other structures) makes the
 * reused node come back with a different successor.
 *
 * Operations: push(v) returns 0; pop() returns the newest value or -1. Setup
 * pushes 1 and 2 so that small tests start with something to pop; teardown
 * pops twice so that a corrupted final state is part of the result.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define NODES 32
#define NIL 0u /* node indices are stored +1, so 0 is the empty stack */

struct node {
    int64_t value;
    _Atomic uint32_t next; /* index + 1 of the node below, or NIL */
};

struct stack {
    _Atomic uint64_t top; /* version << 32 | (index + 1) */
    pthread_mutex_t pool_lock;
    uint32_t free_ring[NODES]; /* FIFO of freed node indices */
    unsigned free_head, free_count, fresh;
    struct node nodes[NODES];
};

static uint64_t word(uint32_t version, uint32_t index1)
{
    return (uint64_t)version << 32 | index1;
}

static uint32_t index1_of(uint64_t w)
{
    return (uint32_t)w;
}

static uint32_t version_of(uint64_t w)
{
#ifdef BUG_ABA
    (void)w;
    return 0;
#else
    return (uint32_t)(w >> 32);
#endif
}

static void *create(void)
{
    struct stack *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->pool_lock, NULL);
    return s;
}

static void destroy(void *obj)
{
    struct stack *s = obj;
    pthread_mutex_destroy(&s->pool_lock);
    free(s);
}

static uint32_t node_alloc(struct stack *s)
{
    pthread_mutex_lock(&s->pool_lock);
    uint32_t i;
    if (s->free_count > 0) {
        i = s->free_ring[s->free_head];
        s->free_head = (s->free_head + 1) % NODES;
        s->free_count--;
    } else {
        i = s->fresh++ % NODES;
    }
    pthread_mutex_unlock(&s->pool_lock);
    return i;
}

static void node_free(struct stack *s, uint32_t i)
{
    pthread_mutex_lock(&s->pool_lock);
    s->free_ring[(s->free_head + s->free_count) % NODES] = i;
    s->free_count++;
    pthread_mutex_unlock(&s->pool_lock);
}

static int64_t push(void *obj, int64_t value)
{
    struct stack *s = obj;
    uint32_t i = node_alloc(s);
    struct node *n = &s->nodes[i];
    n->value = value;
    uint64_t top = atomic_load(&s->top);
#ifdef BUG_MISSING_CAS
    atomic_store(&n->next, index1_of(top));
    atomic_store(&s->top, word(version_of(top) + 1, i + 1));
#else
    do
        atomic_store(&n->next, index1_of(top));
    while (!atomic_compare_exchange_weak(&s->top, &top, word(version_of(top) + 1, i + 1)));
#endif
    return 0;
}

static int64_t pop(void *obj, int64_t unused)
{
    struct stack *s = obj;
    (void)unused;
    uint64_t top = atomic_load(&s->top);
    for (;;) {
        uint32_t i1 = index1_of(top);
        if (i1 == NIL)
            return -1;
        /* may read a node that another thread popped and reused meanwhile:
         * the CAS below then fails (or, without the tag, does not) */
        uint32_t next = atomic_load(&s->nodes[i1 - 1].next);
        if (atomic_compare_exchange_weak(&s->top, &top, word(version_of(top) + 1, next))) {
            int64_t value = s->nodes[i1 - 1].value;
            node_free(s, i1 - 1);
            return value;
        }
    }
}

LINEUP_HARNESS(treiber, create, destroy, LINEUP_OP(push, 3), LINEUP_OP(push, 4), LINEUP_OP(pop, 0));
LINEUP_SETUP(treiber, LINEUP_OP(push, 1), LINEUP_OP(push, 2));
LINEUP_TEARDOWN(treiber, LINEUP_OP(pop, 0), LINEUP_OP(pop, 0));
