/*
 * A work queue whose consumers wait at most 10 ms (pthread_cond_timedwait):
 * submit(v) adds a job, poll() returns the oldest job or -1 when none came in
 * time. With -DBUGGY_IF_WAIT, poll() waits with `if` instead of `while` and takes a
 * job without checking there is one: after a broadcast two pollers wake for
 * one job, and one takes a job that is not there.
 *
 * One of the harnesses written as a new user would (tests/lineup/CMakeLists.txt,
 * "New users' objects").
 */
#include <lineup.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CAP 16
struct wq {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int64_t jobs[CAP];
    int head, tail;
};
static void *create(void)
{
    struct wq *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->m, NULL);
    pthread_cond_init(&q->cv, NULL);
    return q;
}
static void destroy(void *o)
{
    struct wq *q = o;
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->m);
    free(q);
}
static int64_t submit(void *o, int64_t v)
{
    struct wq *q = o;
    pthread_mutex_lock(&q->m);
    q->jobs[q->tail++ % CAP] = v;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->m);
    return 0;
}
static int64_t poll_(void *o, int64_t unused)
{
    struct wq *q = o;
    (void)unused;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 10 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000)
        until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_mutex_lock(&q->m);
#ifdef BUGGY_IF_WAIT
    if (q->head == q->tail && pthread_cond_timedwait(&q->cv, &q->m, &until) == ETIMEDOUT) {
        pthread_mutex_unlock(&q->m);
        return -1;
    }
    int64_t v = q->jobs[q->head++ % CAP];
#else
    while (q->head == q->tail)
        if (pthread_cond_timedwait(&q->cv, &q->m, &until) == ETIMEDOUT)
            break;
    int64_t v = q->head == q->tail ? -1 : q->jobs[q->head++ % CAP];
#endif
    pthread_mutex_unlock(&q->m);
    return v;
}
LINEUP_HARNESS(workq, create, destroy, LINEUP_OP(submit, 7), LINEUP_OP(submit, 8), LINEUP_OP(poll_, 0));
