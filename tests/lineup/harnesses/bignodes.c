/*
 * A Treiber stack whose 256-byte nodes come from malloc and are cleared
 * with memset (no reuse: popped nodes wait on a list until destroy, so no
 * ABA). The
 * memset is wider than the reduction names word by word; inside a block
 * allocated in the execution it names the whole block, which only the
 * node's own accesses meet (lu__key_meet), instead of making the step
 * dependent with everything. Golden counts in tests/lineup/CMakeLists.txt.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int64_t value;
    struct node *next;
    struct node *gone; /* the next on the popped list */
    char pad[232];
};

struct stack {
    _Atomic(struct node *) top;
    _Atomic(struct node *) popped; /* freed by destroy */
};

static void *create(void)
{
    return calloc(1, sizeof(struct stack));
}

static void destroy(void *obj)
{
    struct stack *s = obj;
    for (struct node *n = atomic_load(&s->top); n;) {
        struct node *x = n->next;
        free(n);
        n = x;
    }
    for (struct node *n = atomic_load(&s->popped); n;) {
        struct node *x = n->gone;
        free(n);
        n = x;
    }
    free(s);
}

static int64_t push(void *obj, int64_t v)
{
    struct stack *s = obj;
    struct node *n = malloc(sizeof *n);
    if (!n)
        abort();
    memset(n, 0, sizeof *n);
    n->value = v;
    struct node *t = atomic_load(&s->top);
    do
        n->next = t;
    while (!atomic_compare_exchange_weak(&s->top, &t, n));
    return 0;
}

static int64_t pop(void *obj, int64_t unused)
{
    struct stack *s = obj;
    (void)unused;
    struct node *t = atomic_load(&s->top);
    while (t && !atomic_compare_exchange_weak(&s->top, &t, t->next)) {
    }
    if (!t)
        return -1;
    t->gone = atomic_exchange(&s->popped, t);
    return t->value;
}

LINEUP_HARNESS(bignodes, create, destroy, LINEUP_OP(push, 1), LINEUP_OP(push, 2), LINEUP_OP(pop, 0));
