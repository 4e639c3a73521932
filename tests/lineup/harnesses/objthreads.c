/*
 * Objects with threads of their own, started by create(): they run beside
 * every call, in phase 1 too (a serial call may wait for them), and the
 * main thread waits for the test's threads only before destroy(), which
 * stops them. Each selected with --harness:
 *   server      calls post a request and wait for the server thread's reply;
 *               linearizable (the server applies each request whole);
 *   server_bug  the same, but a call posts without waiting for the request
 *               slot to be free: a second request overwrites the first, whose
 *               caller then waits for good (stuck, no serial explanation);
 *   ready       create()'s thread initializes the value calls wait for;
 *   janitor     a thread that sleeps until destroy() wakes and joins it;
 *   orphan      create()'s thread waits for a signal nobody sends, and
 *               destroy() does not stop it: a harness error that says where
 *               the thread blocks;
 *   ticker      create()'s thread counts and yields until destroy() stops
 *               it, and idler only yields: phase 1 must stay finite (the
 *               thread runs when the calls wait for it) and pass;
 *   setup_dead  a setup call that never returns: a harness error, not a
 *               test whose calls never ran;
 *   early_crash create() starts a thread that crashes and joins it: the
 *               crash is create()'s thread's, before the test's exist;
 *   lazy_ticker the first call starts the ticker and leaves it running: it
 *               belongs to that call only, not to its thread's later calls.
 */
#include <lineup.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct srv {
    pthread_mutex_t m;
    pthread_cond_t req, rep;
    bool has_req, has_rep, quit, ready;
    int64_t arg, out, val;
    pthread_t th;
};

static void *serve(void *p)
{
    struct srv *s = p;
    pthread_mutex_lock(&s->m);
    for (;;) {
        while (!s->has_req && !s->quit)
            pthread_cond_wait(&s->req, &s->m);
        if (!s->has_req)
            break;
        s->out = s->val;
        s->val += s->arg;
        s->has_req = false;
        s->has_rep = true;
        pthread_cond_broadcast(&s->rep);
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}

static struct srv *srv_new(void *(*fn)(void *))
{
    struct srv *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->m, NULL);
    pthread_cond_init(&s->req, NULL);
    pthread_cond_init(&s->rep, NULL);
    pthread_create(&s->th, NULL, fn, s);
    return s;
}

static void *server_create(void)
{
    return srv_new(serve);
}

static void srv_destroy(void *o)
{
    struct srv *s = o;
    pthread_mutex_lock(&s->m);
    s->quit = true;
    pthread_cond_broadcast(&s->req);
    pthread_mutex_unlock(&s->m);
    pthread_join(s->th, NULL);
    free(s);
}

static int64_t post(struct srv *s, int64_t a, bool wait_free)
{
    pthread_mutex_lock(&s->m);
    while (wait_free && (s->has_req || s->has_rep))
        pthread_cond_wait(&s->rep, &s->m);
    s->arg = a;
    s->has_req = true;
    pthread_cond_signal(&s->req);
    while (!s->has_rep)
        pthread_cond_wait(&s->rep, &s->m);
    int64_t r = s->out;
    s->has_rep = false;
    pthread_cond_broadcast(&s->rep);
    pthread_mutex_unlock(&s->m);
    return r;
}

static int64_t add(void *o, int64_t a)
{
    return post(o, a, true);
}

static int64_t add_bug(void *o, int64_t a)
{
    return post(o, a, false);
}

LINEUP_HARNESS(server, server_create, srv_destroy, LINEUP_OP(add, 1), LINEUP_OP(add, 10));
LINEUP_HARNESS(server_bug, server_create, srv_destroy, LINEUP_OP(add_bug, 1), LINEUP_OP(add_bug, 10));

/* ready: the value is 100 once create()'s thread has set it */
static void *init_value(void *p)
{
    struct srv *s = p;
    pthread_mutex_lock(&s->m);
    s->val = 100;
    s->ready = true;
    pthread_cond_broadcast(&s->rep);
    pthread_mutex_unlock(&s->m);
    return NULL;
}

static void *ready_create(void)
{
    return srv_new(init_value);
}

static void ready_destroy(void *o)
{
    struct srv *s = o;
    pthread_join(s->th, NULL);
    free(s);
}

static int64_t incr(void *o, int64_t a)
{
    struct srv *s = o;
    pthread_mutex_lock(&s->m);
    while (!s->ready)
        pthread_cond_wait(&s->rep, &s->m);
    int64_t r = s->val;
    s->val += a;
    pthread_mutex_unlock(&s->m);
    return r;
}

LINEUP_HARNESS(ready, ready_create, ready_destroy, LINEUP_OP(incr, 1), LINEUP_OP(incr, 2));

/* janitor: sleeps until destroy() sets quit */
static void *sleeper(void *p)
{
    struct srv *s = p;
    pthread_mutex_lock(&s->m);
    while (!s->quit)
        pthread_cond_wait(&s->req, &s->m);
    pthread_mutex_unlock(&s->m);
    return NULL;
}

static void *janitor_create(void)
{
    struct srv *s = srv_new(sleeper);
    s->ready = true;
    return s;
}

LINEUP_HARNESS(janitor, janitor_create, srv_destroy, LINEUP_OP(incr, 1), LINEUP_OP(incr, 2));

/* orphan: nobody ever wakes the thread */
static void *orphan_create(void)
{
    struct srv *s = srv_new(sleeper);
    s->ready = true;
    return s;
}

static void orphan_destroy(void *o)
{
    (void)o; /* leaves the thread waiting (and the object to it) */
}

LINEUP_HARNESS(orphan, orphan_create, orphan_destroy, LINEUP_OP(incr, 1));

/* ticker, idler */
struct tick {
    atomic_int quit;
    atomic_long ticks;
    atomic_long val;
    pthread_t th;
};

static void *ticking(void *p)
{
    struct tick *t = p;
    while (!atomic_load(&t->quit)) {
        atomic_fetch_add(&t->ticks, 1);
        sched_yield();
    }
    return NULL;
}

static void *idling(void *p)
{
    struct tick *t = p;
    while (!atomic_load(&t->quit))
        sched_yield();
    return NULL;
}

static void *tick_new(void *(*fn)(void *))
{
    struct tick *t = calloc(1, sizeof *t);
    pthread_create(&t->th, NULL, fn, t);
    return t;
}

static void *ticker_create(void)
{
    return tick_new(ticking);
}

static void *idler_create(void)
{
    return tick_new(idling);
}

static void tick_destroy(void *p)
{
    struct tick *t = p;
    atomic_store(&t->quit, 1);
    pthread_join(t->th, NULL);
    free(t);
}

static int64_t fadd(void *p, int64_t a)
{
    struct tick *t = p;
    return atomic_fetch_add(&t->val, a);
}

LINEUP_HARNESS(ticker, ticker_create, tick_destroy, LINEUP_OP(fadd, 1), LINEUP_OP(fadd, 10));
LINEUP_HARNESS(idler, idler_create, tick_destroy, LINEUP_OP(fadd, 1), LINEUP_OP(fadd, 10));

/* setup_dead: its setup call locks a normal mutex twice */
static int64_t relock(void *o, int64_t unused)
{
    struct srv *s = o;
    (void)unused;
    pthread_mutex_lock(&s->m);
    pthread_mutex_lock(&s->m);
    return 0;
}

static void *plain_create(void)
{
    struct srv *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->m, NULL);
    return s;
}

LINEUP_HARNESS(setup_dead, plain_create, free, LINEUP_OP(incr, 1));
LINEUP_SETUP(setup_dead, LINEUP_OP(relock, 0));

/* early_crash */
static void *crash_now(void *p)
{
    (void)p;
    volatile int *z = NULL;
    *z = 1;
    return NULL;
}

static void *early_create(void)
{
    pthread_t t;
    pthread_create(&t, NULL, crash_now, NULL);
    pthread_join(t, NULL);
    return plain_create();
}

LINEUP_HARNESS(early_crash, early_create, free, LINEUP_OP(incr, 1));

/* lazy_ticker: the ticker of ticker, started by the first call */
struct lazy {
    struct tick t;
    pthread_mutex_t m;
    bool started;
};

static void *lazy_create(void)
{
    struct lazy *z = calloc(1, sizeof *z);
    pthread_mutex_init(&z->m, NULL);
    return z;
}

static void lazy_destroy(void *p)
{
    struct lazy *z = p;
    atomic_store(&z->t.quit, 1);
    if (z->started)
        pthread_join(z->t.th, NULL);
    free(z);
}

static int64_t lazy_fadd(void *p, int64_t a)
{
    struct lazy *z = p;
    pthread_mutex_lock(&z->m);
    if (!z->started) {
        z->started = true;
        pthread_create(&z->t.th, NULL, ticking, &z->t);
    }
    pthread_mutex_unlock(&z->m);
    return atomic_fetch_add(&z->t.val, a);
}

LINEUP_HARNESS(lazy_ticker, lazy_create, lazy_destroy, LINEUP_OP(lazy_fadd, 1), LINEUP_OP(lazy_fadd, 10));
