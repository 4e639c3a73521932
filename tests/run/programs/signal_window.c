/*
 * A signal may arrive before a thread changes its mask or installs a
 * handler, as natively (where these bugs show in nearly every run): the
 * changes are scheduling points. They were not, so the signal always came
 * after the change, and both programs passed with every schedule explored
 * (an audit).
 *
 * Default: the worker blocks SIGUSR1 as its first step, and main sends it
 * one at once; main asserts that the worker's handler never ran.
 * HANDLER: the worker installs the handler as its first step, and main
 * raises SIGUSR1 at once: before the install, its default action ends the
 * process.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

static atomic_int handled;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_store(&handled, 1);
}

#ifndef HANDLER
static atomic_int stop;

static void *worker(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    while (!atomic_load(&stop))
        sched_yield();
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_kill(t, SIGUSR1);
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    assert(atomic_load(&handled) == 0);
    return 0;
}
#else
static void *worker(void *arg)
{
    (void)arg;
    signal(SIGUSR1, on_usr1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    raise(SIGUSR1);
    pthread_join(t, NULL);
    return 0;
}
#endif
