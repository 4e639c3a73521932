/*
 * Signals between the threads of a program: pthread_kill (or, with
 * -DTGKILL, tgkill by thread id) to oneself runs the handler at once, on
 * the caller; to another thread, the handler runs on that thread, also
 * while it is blocked (here in pthread_mutex_lock, which then goes on
 * waiting), with scheduling points of its own. With -DBUG the handler
 * and main both add to a counter by a load and a store: the update the
 * handler makes on the worker can be lost.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static atomic_int got, counter;
static _Atomic pid_t handled_by, worker_tid;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void on_usr1(int sig)
{
    assert(sig == SIGUSR1);
    atomic_store(&handled_by, gettid());
#ifdef BUG
    int c = atomic_load(&counter);
    atomic_store(&counter, c + 1);
#else
    atomic_fetch_add(&counter, 1);
#endif
    atomic_fetch_add(&got, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&worker_tid, gettid());
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void send(pthread_t th, pid_t tid)
{
#ifdef TGKILL
    (void)th;
    assert(tgkill(getpid(), tid, SIGUSR1) == 0);
#else
    (void)tid;
    assert(pthread_kill(th, SIGUSR1) == 0);
#endif
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    /* to oneself: handled before the call returns, by the caller */
    send(pthread_self(), gettid());
    assert(atomic_load(&got) == 1 && atomic_load(&handled_by) == gettid());

    /* to a worker, blocked or not */
    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!atomic_load(&worker_tid))
        sched_yield();
    send(t, atomic_load(&worker_tid));
#ifdef BUG
    int c = atomic_load(&counter);
    atomic_store(&counter, c + 1);
#else
    atomic_fetch_add(&counter, 1);
#endif
    while (atomic_load(&got) != 2)
        sched_yield();
    assert(atomic_load(&handled_by) == atomic_load(&worker_tid));
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    assert(atomic_load(&counter) == 3);
    return 0;
}
