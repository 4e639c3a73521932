/*
 * A nondeterministic object: next() hands out numbers from a counter kept in
 * a static variable, outside the object, so two serial executions of the
 * same calls in the same order return different numbers. lineup must say
 * "nondeterminism", not report a linearizability violation.
 *
 * first: first() says whether it is the first call the process ever made
 * (a static flag). With one call per test, phase 1 runs one serial
 * execution and cannot see two disagree; phase 2, run later in a process
 * where the flag is set, gets another result on a history whose calls do
 * not overlap: that is nondeterminism too, not a violation.
 *
 * coin: get() adds rand()'s next coin toss (0 or 100) to a counter that
 * inc() increments. Phase 1 runs each serial order once, and the orders of
 * 'get(0) get(0) | get(0)'
 * differ only in which thread calls, so it may see no two disagree; phase 2
 * then fails on results no serial order had, and the serial executions run
 * again from the state phase 1 left give other results: nondeterminism, not
 * a violation (an audit found it reported as a violation).
 *
 * arena: a locked stack whose nodes come from a static arena that create()
 * does not reset, so pushes fail (-1) once earlier executions used it up.
 * The calls that fail overlap, and phase 1 ran before the arena ran out:
 * the failure is reported as a violation, but its schedule replayed in a
 * fresh process passes, and lineup must say so, not hand out a replay file
 * that does not fail.
 *
 * modulo: inc() returns whether a static count of its calls is 3 modulo 7:
 * phase 2 finds nondeterminism where the count left by earlier executions
 * makes a result differ, which its schedule replayed in a fresh process
 * does not show (until session 31 it got a replay file that did not fail).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_long handed_out;

static void *create(void)
{
    return malloc(1);
}

static int64_t next(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    return atomic_fetch_add(&handed_out, 1);
}

LINEUP_HARNESS(ticket, create, free, LINEUP_OP(next, 0));

static int first_done;

static int64_t first(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    int64_t r = !first_done;
    first_done = 1;
    return r;
}

LINEUP_HARNESS(first, create, free, LINEUP_OP(first, 0));

static void *coin_create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static int64_t inc(void *o, int64_t unused)
{
    (void)unused;
    atomic_fetch_add((atomic_long *)o, 1);
    return 0;
}

static int64_t get(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((atomic_long *)o) + (rand() % 2) * 100;
}

LINEUP_HARNESS(coin, coin_create, free, LINEUP_OP(inc, 0), LINEUP_OP(get, 0));

#define ARENA 40

static struct node {
    int64_t v;
    struct node *next;
} arena[ARENA];
static int arena_used; /* never reset: the bug */

struct stack {
    pthread_mutex_t lock;
    struct node *top;
};

static void *stack_create(void)
{
    struct stack *s = calloc(1, sizeof *s);
    if (s)
        pthread_mutex_init(&s->lock, NULL);
    return s;
}

static void stack_destroy(void *o)
{
    struct stack *s = o;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int64_t push(void *o, int64_t v)
{
    struct stack *s = o;
    pthread_mutex_lock(&s->lock);
    int64_t r = -1;
    if (arena_used < ARENA) {
        struct node *n = &arena[arena_used++];
        n->v = v;
        n->next = s->top;
        s->top = n;
        r = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

static int64_t pop(void *o, int64_t unused)
{
    struct stack *s = o;
    (void)unused;
    pthread_mutex_lock(&s->lock);
    struct node *n = s->top;
    if (n)
        s->top = n->next;
    pthread_mutex_unlock(&s->lock);
    return n ? n->v : -1;
}

LINEUP_HARNESS(arena, stack_create, stack_destroy, LINEUP_OP(push, 1), LINEUP_OP(push, 2), LINEUP_OP(pop, 0));

static long modulo_calls;

static int64_t modulo_inc(void *o, int64_t unused)
{
    (void)unused;
    atomic_fetch_add((atomic_long *)o, 1);
    return modulo_calls++ % 7 == 3;
}

static int64_t modulo_get(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((atomic_long *)o);
}

static void *modulo_create(void)
{
    return calloc(1, sizeof(atomic_long));
}

LINEUP_HARNESS(modulo, modulo_create, free, LINEUP_OP(modulo_inc, 1), LINEUP_OP(modulo_get, 0));
