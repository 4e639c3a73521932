/*
 * A worker ends the process with the exit_group system call: main may run
 * first at that point (as before _exit), and finds the flag set; a report
 * shows the worker waiting there under the call's name.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int x;

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    syscall(SYS_exit_group, 0);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    atomic_load(&x);
    assert(atomic_load(&x) == 0);
    pthread_join(t, NULL);
    return 0;
}
