/*
 * A condition wait on a recursive mutex the waiter locked twice: glibc
 * releases one level only, so the waiter keeps the mutex through the wait
 * and the signaler, which must lock it, blocks for good (a deadlock, with
 * no preemption). With -DFIXED the waiter locks it once; with -DC11 the
 * same through threads.h (mtx_recursive, cnd_wait).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#ifdef C11
#include <threads.h>
#endif

#ifdef C11
static mtx_t m;
static cnd_t c;
#define LOCK() mtx_lock(&m)
#define UNLOCK() mtx_unlock(&m)
#define WAIT() cnd_wait(&c, &m)
#define SIGNAL() cnd_signal(&c)
#else
static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
#define LOCK() pthread_mutex_lock(&m)
#define UNLOCK() pthread_mutex_unlock(&m)
#define WAIT() pthread_cond_wait(&c, &m)
#define SIGNAL() pthread_cond_signal(&c)
#endif
static int flag;

static void *signaler(void *arg)
{
    (void)arg;
    LOCK();
    flag = 1;
    SIGNAL();
    UNLOCK();
    return NULL;
}

int main(void)
{
#ifdef C11
    mtx_init(&m, mtx_plain | mtx_recursive);
    cnd_init(&c);
#endif
    pthread_t t;
    LOCK();
#ifndef FIXED
    LOCK();
#endif
    pthread_create(&t, NULL, signaler, NULL);
    while (!flag)
        assert(WAIT() == 0);
#ifndef FIXED
    UNLOCK();
#endif
    UNLOCK();
    pthread_join(t, NULL);
    return 0;
}
