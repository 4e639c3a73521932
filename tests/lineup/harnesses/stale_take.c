/*
 * A bounded buffer of capacity 2 on a mutex and two condition variables
 * whose take() waits with `if` instead of `while`: woken by a put whose item
 * another take took first, it takes from an empty buffer and returns the
 * stale slot's -7. In 'take(0) put(1) put(2) | put(2) take(0) put(1)' every
 * execution with the -7 then leaves a put blocked on a buffer fuller than
 * serially possible, so the failure is a stuck history; its explanation says
 * that the calls that returned already have no serial explanation (it used
 * to name only the blocked put, which sent the reader there; an audit's).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct bb {
    pthread_mutex_t m;
    pthread_cond_t notempty, notfull;
    int64_t buf[2];
    int count;
};

static void *create(void)
{
    struct bb *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    pthread_mutex_init(&b->m, NULL);
    pthread_cond_init(&b->notempty, NULL);
    pthread_cond_init(&b->notfull, NULL);
    b->buf[0] = b->buf[1] = -7;
    return b;
}

static void destroy(void *o)
{
    struct bb *b = o;
    pthread_cond_destroy(&b->notfull);
    pthread_cond_destroy(&b->notempty);
    pthread_mutex_destroy(&b->m);
    free(b);
}

static int64_t put(void *o, int64_t v)
{
    struct bb *b = o;
    pthread_mutex_lock(&b->m);
    while (b->count == 2)
        pthread_cond_wait(&b->notfull, &b->m);
    b->buf[b->count++] = v;
    pthread_cond_signal(&b->notempty);
    pthread_mutex_unlock(&b->m);
    return 0;
}

static int64_t take(void *o, int64_t unused)
{
    struct bb *b = o;
    (void)unused;
    pthread_mutex_lock(&b->m);
    if (b->count == 0) /* BUG: a wakeup whose item was taken is not checked again */
        pthread_cond_wait(&b->notempty, &b->m);
    int64_t v = -7;
    if (b->count > 0) {
        v = b->buf[--b->count];
        b->buf[b->count] = -7;
    }
    pthread_cond_signal(&b->notfull);
    pthread_mutex_unlock(&b->m);
    return v;
}

LINEUP_HARNESS(stale_take, create, destroy, LINEUP_OP(put, 1), LINEUP_OP(put, 2), LINEUP_OP(take, 0));
