/*
 * The program stops its own process (raise(SIGSTOP)) after its thread
 * ended: the execution times out, and the report must say the process was
 * stopped, not that it blocked in a system call.
 */
#include <pthread.h>
#include <signal.h>

static void *worker(void *arg)
{
    return arg;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    raise(SIGSTOP);
    return 0;
}
