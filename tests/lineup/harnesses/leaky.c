/*
 * A gate whose pass() blocks until open() was called, with a large object:
 * every execution in which a pass() waits for an open() that never comes
 * is stuck, and lineup never calls destroy() on an object threads are stuck
 * in, so each such execution leaks the whole object. lineup must shed that
 * memory (it restarts its explorer process) instead of growing without
 * bound. The gate is linearizable: a stuck pass() has a serial explanation.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BALLAST (2u << 20) /* bytes per object, touched so that they are resident */

struct gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    volatile int open;
    char *ballast;
};

static void *create(void)
{
    struct gate *g = calloc(1, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->opened, NULL);
    g->ballast = malloc(BALLAST);
    memset(g->ballast, 1, BALLAST);
    return g;
}

static void destroy(void *o)
{
    struct gate *g = o;
    pthread_cond_destroy(&g->opened);
    pthread_mutex_destroy(&g->lock);
    free(g->ballast);
    free(g);
}

static int64_t pass(void *o, int64_t unused)
{
    struct gate *g = o;
    (void)unused;
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->opened, &g->lock);
    pthread_mutex_unlock(&g->lock);
    return 1;
}

static int64_t open_gate(void *o, int64_t unused)
{
    struct gate *g = o;
    (void)unused;
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->opened);
    pthread_mutex_unlock(&g->lock);
    return 0;
}

LINEUP_HARNESS(gate, create, destroy, LINEUP_OP(pass, 0), LINEUP_OP(open_gate, 0));
