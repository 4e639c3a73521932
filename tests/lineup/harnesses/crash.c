/*
 * A stack whose pop() reads the top twice: once to test for emptiness and
 * once to take its successor. When another pop empties the stack between
 * the two reads, the second read is NULL and pop() dereferences it: a crash
 * that needs a concurrent schedule (phase 2). Test: push(1) | pop() | pop().
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

struct node {
    int64_t value;
    struct node *next;
};

struct stack {
    _Atomic(struct node *) top;
    struct node nodes[16];
    atomic_int used;
};

static void *create(void)
{
    return calloc(1, sizeof(struct stack));
}

static int64_t push(void *o, int64_t v)
{
    struct stack *s = o;
    struct node *n = &s->nodes[atomic_fetch_add(&s->used, 1) % 16];
    n->value = v;
    n->next = atomic_load(&s->top);
    while (!atomic_compare_exchange_weak(&s->top, &n->next, n))
        ;
    return 0;
}

static int64_t pop(void *o, int64_t unused)
{
    struct stack *s = o;
    (void)unused;
    if (atomic_load(&s->top) == NULL)
        return -1;
    struct node *n = atomic_load(&s->top);
    struct node *next = n->next; /* n is NULL if another pop got there first */
    if (!atomic_compare_exchange_strong(&s->top, &n, next))
        return -2;
    return n->value;
}

LINEUP_HARNESS(crashstack, create, free, LINEUP_OP(push, 1), LINEUP_OP(pop, 0));
