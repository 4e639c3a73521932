/*
 * Two harnesses in one shared object: without --harness lineup checks both,
 * one after the other. "reg" is an atomic register, "guarded" a counter under
 * a mutex; both are linearizable.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static void *reg_create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static int64_t reg_write(void *o, int64_t v)
{
    atomic_store((atomic_long *)o, v);
    return 0;
}

static int64_t reg_read(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((atomic_long *)o);
}

struct guarded {
    pthread_mutex_t lock;
    int64_t n;
};

static void *g_create(void)
{
    struct guarded *g = calloc(1, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    return g;
}

static int64_t g_add(void *o, int64_t v)
{
    struct guarded *g = o;
    pthread_mutex_lock(&g->lock);
    int64_t old = g->n;
    g->n += v;
    pthread_mutex_unlock(&g->lock);
    return old;
}

LINEUP_HARNESS(reg, reg_create, free, LINEUP_OP(reg_write, 1), LINEUP_OP(reg_write, 2),
               LINEUP_OP(reg_read, 0));
LINEUP_HARNESS(guarded, g_create, free, LINEUP_OP(g_add, 1), LINEUP_OP(g_add, 10));
