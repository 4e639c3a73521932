/*
 * Signal masks are per thread, although all threads of an execution share
 * one kernel thread and its mask: while the worker blocks SIGUSR1, main's
 * own raise() of it is handled at once, by main, and the signal main sends
 * the worker waits until the worker unblocks it, then is handled by the
 * worker. Two handlers with scheduling points, each on its own thread.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static atomic_int got, ready, sent;
static _Atomic pid_t by[2];

static void on_usr1(int sig)
{
    (void)sig;
    int i = atomic_fetch_add(&got, 1);
    atomic_store(&by[i], gettid());
}

static void *worker(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    atomic_store(&ready, 1);
    while (!atomic_load(&sent))
        sched_yield();
    assert(atomic_load(&got) == 1);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    assert(atomic_load(&got) == 2 && atomic_load(&by[1]) == gettid());
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!atomic_load(&ready))
        sched_yield();
    raise(SIGUSR1);
    assert(atomic_load(&got) == 1 && atomic_load(&by[0]) == gettid());
    pthread_kill(t, SIGUSR1);
    atomic_store(&sent, 1);
    pthread_join(t, NULL);
    assert(atomic_load(&got) == 2);
    return 0;
}
