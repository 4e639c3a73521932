/*
 * A worker ends by the exit system call, which natively ends only that
 * thread (its join still returns). lineup cannot let it: it is an
 * unsupported call, not a hang.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *worker(void *arg)
{
    (void)arg;
    syscall(SYS_exit, 0);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
