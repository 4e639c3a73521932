/*
 * Harnesses that misbehave on purpose, each selected with --harness:
 *   spin      waits on a plain (not atomic) flag: the watchdog must report
 *             divergence, not hang;
 *   quit      calls exit(3) inside an operation: a crash report, lineup goes on;
 *   snapshot  a correct set whose to_array() returns its contents as bytes,
 *             to exercise byte-string results (no failure expected).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *create(void)
{
    return calloc(1, 64);
}

static int64_t spin_wait(void *o, int64_t unused)
{
    int *flag = o;
    (void)unused;
    while (!*flag)
        ;
    return 0;
}

static int64_t quit(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    exit(3);
}

struct set {
    pthread_mutex_t lock;
    unsigned char member[8];
};

static void *set_create(void)
{
    struct set *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static int64_t add(void *o, int64_t v)
{
    struct set *s = o;
    pthread_mutex_lock(&s->lock);
    int64_t was = s->member[v];
    s->member[v] = 1;
    pthread_mutex_unlock(&s->lock);
    return !was;
}

static int64_t to_array(void *o, int64_t unused)
{
    struct set *s = o;
    (void)unused;
    unsigned char out[8];
    int64_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < 8; i++)
        if (s->member[i])
            out[n++] = (unsigned char)i;
    pthread_mutex_unlock(&s->lock);
    lineup_result_bytes(out, (size_t)n);
    return n;
}

LINEUP_HARNESS(spin, create, free, LINEUP_OP(spin_wait, 0));
LINEUP_HARNESS(quit, create, free, LINEUP_OP(quit, 0));
LINEUP_HARNESS(snapshot, set_create, free, LINEUP_OP(add, 1), LINEUP_OP(add, 2), LINEUP_OP(to_array, 0));

/* cancel: uses pthread_cancel, which lineup cannot model: a clear
 * "unsupported" error (exit status 2), not a verdict. */
static int64_t cancel_self(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    pthread_cancel(pthread_self());
    return 0;
}

LINEUP_HARNESS(cancel, create, free, LINEUP_OP(cancel_self, 0));
