/* A constructor that ignores SIGCHLD: the kernel would then reap the
 * processes of lineup's executions itself, and their statuses would be
 * lost (a crash looking like a clean exit). lineup waits with the default
 * disposition and gives the program its own in each execution: main
 * checks that it is still ignored, then a thread crashes in the schedules
 * where it runs before main stores the flag. */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

static atomic_int ready;

__attribute__((constructor)) static void ignore_children(void)
{
    signal(SIGCHLD, SIG_IGN);
}

static void *worker(void *arg)
{
    if (!atomic_load(&ready))
        *(volatile int *)arg = 1; /* arg is NULL: a crash */
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    sigaction(SIGCHLD, NULL, &sa);
    assert(sa.sa_handler == SIG_IGN);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    atomic_store(&ready, 1);
    pthread_join(t, NULL);
    return 0;
}
