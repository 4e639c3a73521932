/*
 * A thread sends SIGTERM to its parent process (natively a shell, under
 * lineup run the process that runs the executions), which is no request to
 * stop the search: the executions go on, and the assertion that main read
 * the counter before the thread's increment fails where it should (until
 * session 31 the search stopped as interrupted, exit 143, with nothing found).
 */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int x;

static void *worker(void *a)
{
    (void)a;
    atomic_fetch_add(&x, 1);
    kill(getppid(), SIGTERM);
    return 0;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    int v = atomic_load(&x);
    pthread_join(t, 0);
    assert(v == 0);
    return 0;
}
