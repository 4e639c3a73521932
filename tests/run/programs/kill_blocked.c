/*
 * A signal to the own process from a thread that blocks it: natively a
 * thread that does not block it takes it (here main, whose handler sets
 * the flag it waits for). lineup held it on the sender, which then ended:
 * main waited for ever, a false livelock (an audit).
 * ALL_BLOCK: every thread blocks it when it is sent (the worker inherits
 * main's mask); it stays pending on the process, and main takes it when it
 * unblocks it (it stayed on the sender: a false livelock, a review).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int got;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_store(&got, 1);
}

static void *sender(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    kill(getpid(), SIGUSR1);
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
#ifdef ALL_BLOCK
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
#endif
    pthread_t t;
    pthread_create(&t, NULL, sender, NULL);
    pthread_join(t, NULL);
#ifdef ALL_BLOCK
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
#endif
    while (!atomic_load(&got))
        sched_yield();
    return 0;
}
