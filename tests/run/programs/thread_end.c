/*
 * A thread's end after its last operation: natively the thread is still
 * alive for a while there, and others can see it alive.
 *
 *   (default)   a worker ends holding a robust mutex right after it says
 *               so; the main thread's trylock then gets EBUSY (owner still
 *               alive) or EOWNERDEAD (it ended). The assertion that it is
 *               always EOWNERDEAD fails.
 *   -DSIGNAL    a worker ends right after it says so, and the main thread
 *               signals it: the handler runs when the signal finds it
 *               alive. The assertion that it never runs fails.
 *   -DONCE      the first once routine ends its thread (pthread_exit): as
 *               with glibc the routine is not done, and the other caller
 *               runs it again (two runs, no deadlock).
 *   -DONCE_C11  the same with call_once and thrd_exit.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>

static atomic_int said __attribute__((unused)), handled __attribute__((unused)), runs __attribute__((unused));

#if defined(ONCE) || defined(ONCE_C11)
#ifdef ONCE
static pthread_once_t once = PTHREAD_ONCE_INIT;
#else
static once_flag once = ONCE_FLAG_INIT;
#endif

static void init(void)
{
    if (atomic_fetch_add(&runs, 1) == 0) {
#ifdef ONCE
        pthread_exit(NULL);
#else
        thrd_exit(0);
#endif
    }
}

static void *caller(void *arg)
{
    (void)arg;
#ifdef ONCE
    pthread_once(&once, init);
#else
    call_once(&once, init);
#endif
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, caller, NULL);
    pthread_create(&b, NULL, caller, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("runs %d\n", atomic_load(&runs));
    assert(atomic_load(&runs) == 2);
    return 0;
}
#elif defined(SIGNAL)
static void on_usr1(int sig)
{
    (void)sig;
    atomic_store(&handled, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&said, 1);
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    while (!atomic_load(&said))
        ;
    pthread_kill(w, SIGUSR1);
    pthread_join(w, NULL);
    assert(!atomic_load(&handled));
    return 0;
}
#else
static pthread_mutex_t m;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    atomic_store(&said, 1);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    while (!atomic_load(&said))
        ;
    int rc = pthread_mutex_trylock(&m);
    assert(rc == EOWNERDEAD);
    pthread_join(w, NULL);
    return 0;
}
#endif
