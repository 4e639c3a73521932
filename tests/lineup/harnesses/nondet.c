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
 *
 * pool: a thread pool whose workers and drain() wait on one condition
 * variable, and a worker that finished a task signals it (a broadcast is
 * needed): it can wake the other worker instead of drain(), a lost wakeup
 * among the object's threads, so one serial execution returns and another
 * gets stuck. The report says where the stuck one waits (it said only "got
 * stuck" until session 32; an audit's thread pool).
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

/* ---- pool ---- */

#define POOL_WORKERS 2

struct pool {
    pthread_mutex_t m;
    pthread_cond_t cv; /* of the workers and of drain(), both */
    int64_t q[8];
    int qh, qn, submitted, completed, stop;
    int64_t sum;
    pthread_t w[POOL_WORKERS];
};

static void *pool_worker(void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock(&p->m);
    for (;;) {
        while (!p->stop && p->qn == 0)
            pthread_cond_wait(&p->cv, &p->m);
        if (p->qn == 0)
            break;
        int64_t v = p->q[p->qh];
        p->qh = (p->qh + 1) % 8;
        p->qn--;
        pthread_mutex_unlock(&p->m);
        pthread_mutex_lock(&p->m);
        p->sum += v;
        p->completed++;
        pthread_cond_signal(&p->cv); /* the bug: may wake a worker, not drain() */
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

static void *pool_create(void)
{
    struct pool *p = calloc(1, sizeof *p);
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (int i = 0; i < POOL_WORKERS; i++)
        pthread_create(&p->w[i], NULL, pool_worker, p);
    return p;
}

static void pool_destroy(void *o)
{
    struct pool *p = o;
    pthread_mutex_lock(&p->m);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->m);
    for (int i = 0; i < POOL_WORKERS; i++)
        pthread_join(p->w[i], NULL);
    free(p);
}

static int64_t pool_submit(void *o, int64_t v)
{
    struct pool *p = o;
    pthread_mutex_lock(&p->m);
    p->q[(p->qh + p->qn) % 8] = v;
    p->qn++;
    p->submitted++;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->m);
    return 0;
}

static int64_t pool_drain(void *o, int64_t unused)
{
    struct pool *p = o;
    (void)unused;
    pthread_mutex_lock(&p->m);
    while (p->completed != p->submitted)
        pthread_cond_wait(&p->cv, &p->m);
    int64_t s = p->sum;
    pthread_mutex_unlock(&p->m);
    return s;
}

LINEUP_HARNESS(pool, pool_create, pool_destroy, LINEUP_OP(pool_submit, 1), LINEUP_OP(pool_drain, 0));
