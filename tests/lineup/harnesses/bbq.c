/*
 * A bounded blocking queue of capacity 1, mutex + two condition variables:
 * put() waits while full, take() waits while empty (stuck serial histories).
 * With -DBUGGY_ONE_COND, one condition variable serves both "not full" and "not
 * empty" with pthread_cond_signal: a put can wake another put instead of a
 * take, and the take sleeps forever (a lost wakeup).
 *
 * One of the harnesses written as a new user would (tests/lineup/CMakeLists.txt,
 * "New users' objects").
 */
#include <lineup.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define CAP 1
struct bbq {
    pthread_mutex_t m;
    pthread_cond_t notfull, notempty;
    int64_t items[CAP];
    unsigned head, count;
};
static void *create(void)
{
    struct bbq *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->m, NULL);
    pthread_cond_init(&q->notfull, NULL);
    pthread_cond_init(&q->notempty, NULL);
    return q;
}
static void destroy(void *o)
{
    struct bbq *q = o;
    pthread_mutex_destroy(&q->m);
    pthread_cond_destroy(&q->notfull);
    pthread_cond_destroy(&q->notempty);
    free(q);
}
#ifdef BUGGY_ONE_COND
#define NOTFULL notempty
#else
#define NOTFULL notfull
#endif
static int64_t put(void *o, int64_t v)
{
    struct bbq *q = o;
    pthread_mutex_lock(&q->m);
    while (q->count == CAP)
        pthread_cond_wait(&q->NOTFULL, &q->m);
    q->items[(q->head + q->count++) % CAP] = v;
    pthread_cond_signal(&q->notempty);
    pthread_mutex_unlock(&q->m);
    return 0;
}
static int64_t take(void *o, int64_t unused)
{
    struct bbq *q = o;
    (void)unused;
    pthread_mutex_lock(&q->m);
    while (q->count == 0)
        pthread_cond_wait(&q->notempty, &q->m);
    int64_t v = q->items[q->head];
    q->head = (q->head + 1) % CAP;
    q->count--;
    pthread_cond_signal(&q->NOTFULL);
    pthread_mutex_unlock(&q->m);
    return v;
}
LINEUP_HARNESS(bbq, create, destroy, LINEUP_OP(put, 1), LINEUP_OP(put, 2), LINEUP_OP(take, 0));
