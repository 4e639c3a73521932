/*
 * Elimination back-off stack (Hendler, Shavit and Yerushalmi, SPAA 2004): a
 * Treiber stack whose operations, when their CAS on the top fails, back off
 * to an elimination slot instead of retrying at once. A push offers its
 * value in the slot; a pop that finds an offer takes it with a CAS: the two
 * operations cancel out (push immediately followed by pop) without touching
 * the stack. The paper has an array of slots picked at random; one slot
 * keeps the harness deterministic and is where every collision happens
 * anyway in tests of two or three threads.
 *
 * Slot protocol: EMPTY -> OFFER(v) by the pusher (CAS); OFFER(v) -> TAKEN by
 * a pop (CAS); the pusher then sees TAKEN, resets the slot to EMPTY and is
 * done. A pusher that waited long enough withdraws with a CAS OFFER(v) ->
 * EMPTY; if that CAS fails, a pop took the offer in the meantime and the
 * push is done too.
 *
 *   correct                 linearizable
 *   -DBUG_WITHDRAW_STORE    the pusher withdraws with a plain store of
 *                           EMPTY after its last look at the slot, and
 *                           retries on the stack: a pop that took the offer
 *                           between the look and the store returns v, and v
 *                           is pushed as well (it is popped twice).
 *
 * The pusher looks at the slot ELIM_LOOKS times before it withdraws (1 by
 * default). Under lineup a repeated look at an unchanged slot is a spin,
 * which lineup runs only when nobody else can, or when its search chooses
 * the spinning thread at the cost of a preemption; with ELIM_LOOKS > 1 the
 * race above needs that choice (benchmarks/subjects/README.md).
 *
 * Operations: push(v) returns 0; pop() returns the newest value or -1 when
 * the stack is empty (pops do not wait in the slot). The teardown pops
 * three times, so a value pushed twice shows in the final state. Nodes come
 * from an arena and are never reused (no ABA; treiber.c has that bug).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef ELIM_LOOKS
#define ELIM_LOOKS 1
#endif

#define CAPACITY 64
#define EMPTY 0
#define TAKEN 2
#define OFFER(v) ((uint64_t)(v) << 2 | 1u)
#define IS_OFFER(s) (((s)&3u) == 1u)
#define OFFER_VALUE(s) ((int64_t)((s) >> 2))

struct node {
    int64_t value;
    struct node *next; /* written before the node is published */
};

struct stack {
    _Atomic(struct node *) top;
    _Atomic uint64_t slot;
    atomic_uint used;
    struct node arena[CAPACITY];
};

static void *create(void)
{
    return calloc(1, sizeof(struct stack));
}

static void destroy(void *obj)
{
    free(obj);
}

/* Returns 1 if a pop took the value, 0 if the push must retry. */
static int eliminate_push(struct stack *s, int64_t value)
{
    uint64_t expected = EMPTY;
    if (!atomic_compare_exchange_strong(&s->slot, &expected, OFFER(value)))
        return 0; /* slot busy: back to the stack */
    for (int i = 0; i < ELIM_LOOKS; i++) {
        if (atomic_load(&s->slot) == TAKEN) {
            atomic_store(&s->slot, EMPTY);
            return 1;
        }
    }
#ifdef BUG_WITHDRAW_STORE
    atomic_store(&s->slot, EMPTY);
    return 0;
#else
    expected = OFFER(value);
    if (atomic_compare_exchange_strong(&s->slot, &expected, EMPTY))
        return 0;                  /* withdrawn: nobody came */
    atomic_store(&s->slot, EMPTY); /* it was taken after all */
    return 1;
#endif
}

/* Returns the value of an offer taken from the slot, or -1. */
static int64_t eliminate_pop(struct stack *s)
{
    uint64_t seen = atomic_load(&s->slot);
    if (IS_OFFER(seen) && atomic_compare_exchange_strong(&s->slot, &seen, TAKEN))
        return OFFER_VALUE(seen);
    return -1;
}

static int64_t push(void *obj, int64_t value)
{
    struct stack *s = obj;
    struct node *n = &s->arena[atomic_fetch_add(&s->used, 1) % CAPACITY];
    n->value = value;
    for (;;) {
        struct node *top = atomic_load(&s->top);
        n->next = top;
        if (atomic_compare_exchange_strong(&s->top, &top, n))
            return 0;
        if (eliminate_push(s, value))
            return 0;
    }
}

static int64_t pop(void *obj, int64_t unused)
{
    struct stack *s = obj;
    (void)unused;
    for (;;) {
        struct node *top = atomic_load(&s->top);
        if (top == NULL)
            return -1;
        if (atomic_compare_exchange_strong(&s->top, &top, top->next))
            return top->value;
        int64_t v = eliminate_pop(s);
        if (v >= 0)
            return v;
    }
}

LINEUP_HARNESS(elimination_stack, create, destroy, LINEUP_OP(push, 1), LINEUP_OP(push, 2), LINEUP_OP(pop, 0));
LINEUP_TEARDOWN(elimination_stack, LINEUP_OP(pop, 0), LINEUP_OP(pop, 0), LINEUP_OP(pop, 0));
