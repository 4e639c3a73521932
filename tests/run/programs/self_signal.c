/*
 * A thread ends its own process with a signal that no handler takes, once
 * main has set a flag: raise(SIGTERM) (default), kill(getpid(), SIGUSR1)
 * (-DKILL_USR1), sigqueue(getpid(), SIGKILL) (-DSIGQUEUE_KILL) or
 * syscall(SYS_kill, getpid(), SIGKILL) (-DSYS_KILL). No handler sees it
 * die, so lineup must hear of it before: the report names the signal, the
 * thread and the line, as for a crash.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int ready;

static void *worker(void *arg)
{
    (void)arg;
    if (atomic_load(&ready)) {
#if defined(KILL_USR1)
        kill(getpid(), SIGUSR1);
#elif defined(SIGQUEUE_KILL)
        union sigval v = {0};
        sigqueue(getpid(), SIGKILL, v);
#elif defined(SYS_KILL)
        syscall(SYS_kill, getpid(), SIGKILL);
#else
        raise(SIGTERM);
#endif
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    atomic_store(&ready, 1);
    pthread_join(t, NULL);
    return 0;
}
