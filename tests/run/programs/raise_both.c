/*
 * Two threads raise the same signal, whose handler has scheduling points:
 * each handles its own, although the kernel blocks the signal on the
 * kernel thread they share while the first handler runs (a second raise
 * used to be handled after it, by the first thread).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int got;
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
    raise(SIGUSR1);
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load(&got) == 2);
    assert(atomic_load(&by[0]) != atomic_load(&by[1]));
    return 0;
}
